import TaskViewCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ScenarioDecoder {
    /// Parses and validates scenario text. `file` names it in messages; relative `cwd`s of
    /// `command` nodes are resolved against `baseDirectory` (nil: the current directory)
    /// and must be existing directories of the file system.
    package static func decode(
        _ bytes: [UInt8], file: String, name: String, baseDirectory: String? = nil
    ) throws(ScenarioError) -> Scenario {
        try decode(bytes, file: file, name: name, baseDirectory: baseDirectory, isDirectory: isExistingDirectory)
    }

    /// Whether `path` names an existing directory (following symlinks).
    package static func isExistingDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }
}

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds a command name in `PATH` before spawning. swift-subprocess, given a bare name,
/// spawns once per `PATH` directory until one does not fail with ENOENT (a whole fork and
/// exec per miss: with `true` in the ninth directory, nine processes per command); looking
/// the name up first costs a `stat` and an `access` per directory instead. What was found is
/// remembered per name and `PATH` and checked with one `access` the next time: a thousand
/// commands named alike look in the directories once.
enum ExecutableLookup {
    private static let found = Mutex([String: String]())

    /// Names remembered at most (the table is emptied when it is full).
    static let remembered = 1024

    /// The first `DIR/name`, for the absolute directories of `path` in order (as
    /// swift-subprocess searches: empty and relative entries skipped), that is a regular file
    /// this process may execute; nil when there is none (or `path` is nil), so that the
    /// caller lets swift-subprocess search and report the error as it always did.
    static func find(_ name: String, path: String?) -> String? {
        guard let path, !name.isEmpty, !name.contains("/") else { return nil }
        let key = path + "\0" + name
        if let file = found.withLock({ $0[key] }), access(file, X_OK) == 0 { return file }
        for dir in path.split(separator: ":") where dir.hasPrefix("/") {
            let file = String(dir) + (dir.hasSuffix("/") ? "" : "/") + name
            var st = stat()
            if stat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG, access(file, X_OK) == 0 {
                found.withLock { table in
                    if table.count >= remembered { table.removeAll() }
                    table[key] = file
                }
                return file
            }
        }
        return nil
    }
}

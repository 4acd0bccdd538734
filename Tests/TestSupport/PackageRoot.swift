#if canImport(Glibc)
    import Glibc
#endif

/// The package's root directory (no trailing slash): the nearest directory above `file` (the
/// calling test's `#filePath`) that holds Package.swift, so a test finds docs/ and demos/
/// however deep its file sits under Tests/.
public func packageRoot(_ file: String = #filePath) -> String {
    var parts = file.split(separator: "/").dropLast()
    while !parts.isEmpty {
        let dir = "/" + parts.joined(separator: "/")
        if access(dir + "/Package.swift", F_OK) == 0 { return dir }
        parts = parts.dropLast()
    }
    fatalError("no Package.swift above \(file)")
}

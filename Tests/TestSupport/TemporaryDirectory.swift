#if canImport(Glibc)
    import Glibc
#endif

/// A fresh private directory under /tmp, made by `mkdtemp` (a unique name, mode 0700, owned by
/// the test's user) and short enough for a Unix socket path; `remove()` deletes it with
/// everything in it. Where the test fits in a closure, `withTemporaryDirectory` removes it
/// after; otherwise `defer { dir.remove() }` right after making it.
public struct TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Makes `/tmp/<prefix>-XXXXXX`; a test cannot go on without it, so a failure traps.
    public init(_ prefix: String = "taskgraph-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("mkdtemp /tmp/\(prefix)-XXXXXX failed: errno \(errno)")
        }
        path = String(cString: made)
    }

    /// The path of `name` inside the directory (nothing is created).
    public func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the directory and everything under it (symlinks are removed, not followed).
    public func remove() { removeTree(path) }
}

/// Runs `body` with a fresh `TemporaryDirectory`, removed when `body` returns or throws.
public func withTemporaryDirectory<R>(
    _ prefix: String = "taskgraph-test", _ body: (TemporaryDirectory) throws -> R
) rethrows -> R {
    let dir = TemporaryDirectory(prefix)
    defer { dir.remove() }
    return try body(dir)
}

/// Runs async `body` with a fresh `TemporaryDirectory`, removed when `body` returns or throws.
public func withTemporaryDirectory<R>(
    _ prefix: String = "taskgraph-test", isolation: isolated (any Actor)? = #isolation,
    _ body: (TemporaryDirectory) async throws -> R
) async rethrows -> R {
    let dir = TemporaryDirectory(prefix)
    defer { dir.remove() }
    return try await body(dir)
}

/// Removes `path` and, if it is a directory (not a symlink to one), everything under it.
private func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if st.st_mode & S_IFMT == S_IFDIR, let d = opendir(path) {
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { removeTree(path + "/" + name) }
        }
        closedir(d)
        rmdir(path)
    } else {
        unlink(path)
    }
}

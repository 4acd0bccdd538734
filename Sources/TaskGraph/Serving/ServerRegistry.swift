#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The live servers of this process: picks free default paths (`<pid>.sock`,
/// `<pid>-2.sock`, ...) and stops every server at normal exit (final snapshot, `end`,
/// socket file removed).
final class ServerRegistry: @unchecked Sendable { // state behind `lock`
    static let shared = ServerRegistry()

    private let lock = Lock()
    private var servers: [ObjectIdentifier: GraphServer] = [:]
    private var paths: Set<String> = []
    private var installed = false

    /// Binds a listening socket at `path`, or at the first free default path. Holds the
    /// registry's lock throughout, so two servers started at once never pick the same name.
    func listen(at path: String?) throws -> (path: String, fd: Int32, inode: ino_t) {
        try lock.withLock {
            if let path {
                let (fd, inode) = try SocketPath.listen(at: path)
                paths.insert(path)
                return (path, fd, inode)
            }
            let dir = try SocketPath.defaultDirectory()
            let pid = getpid()
            var n = 1
            while true {
                let candidate = dir + (n == 1 ? "/\(pid).sock" : "/\(pid)-\(n).sock")
                if !paths.contains(candidate) {
                    let (fd, inode) = try SocketPath.listen(at: candidate)
                    paths.insert(candidate)
                    return (candidate, fd, inode)
                }
                n += 1
            }
        }
    }

    func add(_ server: GraphServer) {
        let install = lock.withLock { () -> Bool in
            servers[ObjectIdentifier(server)] = server
            defer { installed = true }
            return !installed
        }
        if install { atexit { ServerRegistry.shared.stopAll() } }
    }

    func remove(_ server: GraphServer) {
        lock.withLock {
            servers.removeValue(forKey: ObjectIdentifier(server))
            paths.remove(server.path)
        }
    }

    /// Releases a path whose server could not start.
    func release(path: String) {
        lock.withLock { _ = paths.remove(path) }
    }

    func stopAll() {
        let live = lock.withLock { Array(servers.values) }
        for s in live { s.stop() }
    }
}

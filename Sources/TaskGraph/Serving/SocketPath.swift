#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where servers put their sockets (ServingAGraph) and how the listening socket
/// is made safely: a private directory, a 0600 socket, stale sockets replaced.
package enum SocketPath {
    /// `sun_path` holds 108 bytes on Linux (104 on Darwin), the terminating NUL included.
    static let maxBytes: Int = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// The directory of default socket paths: `$TASKGRAPH_SOCKET_DIR`, else
    /// `$XDG_RUNTIME_DIR/taskgraph`, else `/tmp/taskgraph-<uid>`. Created 0700 when missing;
    /// refused when it is not a directory owned by this user and closed to group and others.
    static func defaultDirectory() throws -> String {
        let dir: String
        if let d = env("TASKGRAPH_SOCKET_DIR"), !d.isEmpty {
            dir = d
        } else if let x = env("XDG_RUNTIME_DIR"), !x.isEmpty {
            dir = x.hasSuffix("/") ? x + "taskgraph" : x + "/taskgraph"
        } else {
            dir = "/tmp/taskgraph-\(geteuid())"
        }
        try ensurePrivateDirectory(dir)
        return dir
    }

    static func env(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Creates `dir` with mode 0700 if missing, then checks it (`checkPrivateDirectory`).
    static func ensurePrivateDirectory(_ dir: String) throws {
        try checkParents(of: dir)
        if mkdir(dir, 0o700) != 0 && errno != EEXIST {
            throw ServeError(path: dir, reason: "cannot create the directory: \(lastError())")
        }
        try checkPrivateDirectory(dir)
    }

    /// Checks the rules a socket directory must meet, for the server and for viewers: a real
    /// directory (not a symlink), owned by this user, closed to group and others, and no
    /// parent that anyone may write to without the sticky bit (where another user could
    /// rename the directory away and put their own in its place).
    package static func checkPrivateDirectory(_ dir: String) throws(ServeError) {
        var st = stat()
        guard lstat(dir, &st) == 0 else {
            throw ServeError(path: dir, reason: lastError())
        }
        guard st.st_mode & S_IFMT != S_IFLNK else {
            throw ServeError(path: dir, reason: "the directory is a symbolic link")
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw ServeError(path: dir, reason: "not a directory")
        }
        guard st.st_uid == geteuid() else {
            throw ServeError(
                path: dir, reason: "the directory is owned by uid \(st.st_uid), not by this user (uid \(geteuid()))")
        }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw ServeError(
                path: dir, reason: "the directory is open to group or others (mode \(octal(mode))); it must be 0700")
        }
        try checkParents(of: dir)
    }

    /// Refuses a parent of `dir` (each directory on its resolved path up to `/`) that others
    /// may write to without the sticky bit: `/tmp` (1777) passes, a 0777 directory does not.
    package static func checkParents(of dir: String) throws(ServeError) {
        guard let parent = parentPath(of: dir) else { return }
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(parent, &resolved) != nil else { return } // missing: mkdir or lstat fails
        var current = resolved.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        while true {
            var st = stat()
            if stat(current, &st) == 0, st.st_mode & 0o002 != 0, st.st_mode & 0o1000 == 0 {
                throw ServeError(
                    path: dir,
                    reason:
                        "its parent \(current) may be written by anyone and has no sticky bit (mode \(octal(st.st_mode & 0o7777)))"
                )
            }
            guard let up = parentPath(of: current) else { return }
            current = up
        }
    }

    /// `/a/b` for `/a/b/c` (trailing slashes ignored), `/` for `/a`, `.` for `a`; nil for `/`.
    static func parentPath(of path: String) -> String? {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        guard p != "/" else { return nil }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    static func octal(_ mode: mode_t) -> String {
        let s = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    static func lastError() -> String { String(cString: strerror(errno)) }

    /// `path` as a `sockaddr_un`, or an error when it does not fit.
    static func address(_ path: String) throws -> sockaddr_un {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty else { throw ServeError(path: path, reason: "empty path") }
        guard bytes.count < maxBytes else {
            throw ServeError(
                path: path,
                reason:
                    "the path is \(bytes.count) bytes; a Unix socket path must be shorter than \(maxBytes) bytes (the sockaddr_un limit)"
            )
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return addr
    }

    static func sysListen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.listen(fd, backlog)
        #elseif canImport(Musl)
            Musl.listen(fd, backlog)
        #else
            Darwin.listen(fd, backlog)
        #endif
    }

    /// Whether a server answers at `addr` (false: nothing listens, a stale socket).
    static func isLive(_ addr: sockaddr_un) -> Bool {
        let fd = makeSocket(nonBlocking: false)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var a = addr
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return r == 0 || errno != ECONNREFUSED
    }

    /// A listening, non-blocking socket bound at `path` with mode 0600. An existing stale
    /// socket is replaced; anything else at `path` is refused. Returns the fd and the
    /// socket file's inode (so `stop()` removes only its own file).
    static func listen(at path: String) throws -> (fd: Int32, inode: ino_t) {
        var addr = try address(path)
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw ServeError(path: path, reason: "the path exists and is not a socket")
            }
            guard !isLive(addr) else {
                throw ServeError(path: path, reason: "another server is listening there")
            }
            guard unlink(path) == 0 else {
                throw ServeError(path: path, reason: "cannot remove the stale socket: \(lastError())")
            }
        }
        let fd = makeSocket(nonBlocking: true)
        guard fd >= 0 else { throw ServeError(path: path, reason: "socket: \(lastError())") }
        // The file is created 0600 (umask 0177 during bind), then chmod in case of odd umasks.
        let old = umask(0o177)
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindErrno = errno
        umask(old)
        guard r == 0 else {
            close(fd)
            throw ServeError(path: path, reason: "bind: \(String(cString: strerror(bindErrno)))")
        }
        guard chmod(path, 0o600) == 0, sysListen(fd, 32) == 0, lstat(path, &st) == 0 else {
            let reason = lastError()
            close(fd)
            unlink(path)
            throw ServeError(path: path, reason: reason)
        }
        return (fd, st.st_ino)
    }

    /// A Unix stream socket, close-on-exec, optionally non-blocking.
    static func makeSocket(nonBlocking: Bool) -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return fd }
        configure(fd, nonBlocking: nonBlocking)
        return fd
    }

    /// Sets close-on-exec, non-blocking when asked, and (Darwin) no SIGPIPE on writes.
    static func configure(_ fd: Int32, nonBlocking: Bool) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// The uid of the process at the other end of a connected Unix socket.
    package static func peerUID(_ fd: Int32) -> uid_t? {
        #if canImport(Glibc)
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
            var cred: (Int32, UInt32, UInt32) = (0, 0, 0)
            var len = socklen_t(MemoryLayout.size(ofValue: cred))
            guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 else { return nil }
            return cred.1
        #else
            var uid: uid_t = 0
            var gid: gid_t = 0
            guard getpeereid(fd, &uid, &gid) == 0 else { return nil }
            return uid
        #endif
    }
}

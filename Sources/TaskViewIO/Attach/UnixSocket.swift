import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few POSIX socket calls a viewer needs: connect to a Unix socket (never blocking for
/// long, and only to a program of our own user), send a line.
enum UnixSocket {
    /// Longest wait for a connect that is in progress (a stopped program must
    /// not hang the viewer).
    static let connectTimeout = 1.0

    /// Why a connect failed.
    struct Failure: Error, CustomStringConvertible, Sendable {
        let path: String
        let code: Int32
        /// The uid of a program of another user (the connection was refused by us).
        var otherUID: uid_t? = nil

        var description: String {
            if let otherUID { return "\(path): \(UnixSocket.otherUserRefusal) (uid \(otherUID))" }
            if isNotAnswering { return "\(path): not answering (the program is stopped or busy)" }
            return "\(path): " + String(cString: strerror(code))
        }
        /// Nobody listens (a stale socket left by a killed program).
        var isStale: Bool { otherUID == nil && (code == ECONNREFUSED || code == ENOENT) }
        /// The program's queue of connections is full, or the connect did not finish in time
        /// (a stopped program).
        var isNotAnswering: Bool { otherUID == nil && (code == EAGAIN || code == ETIMEDOUT) }
    }

    /// What a viewer says about a program of another user (the server's own words).
    static let otherUserRefusal = GraphServer.otherUserRefusal

    /// A connected, blocking stream socket (close-on-exec) to a program of this user, or the
    /// failure. The connect itself never waits more than `timeout` seconds.
    static func connect(path: String, timeout: Double = connectTimeout) -> Result<Int32, Failure> {
        switch startConnect(path: path) {
        case .failure(let f):
            return .failure(f)
        case .success(let (fd, inProgress)):
            if inProgress {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var r: Int32
                repeat { r = poll(&p, 1, Int32(timeout * 1000)) } while r < 0 && errno == EINTR
                if let f = r > 0 ? connectError(fd, path: path) : Failure(path: path, code: ETIMEDOUT) {
                    close(fd)
                    return .failure(f)
                }
            }
            if let f = checkPeer(fd, path: path) {
                close(fd)
                return .failure(f)
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            return .success(fd)
        }
    }

    /// Starts a non-blocking connect: the socket (still non-blocking) and whether the connect
    /// is still in progress (then wait for POLLOUT and read `connectError`). Linux answers a
    /// full queue of a stopped program with EAGAIN at once.
    static func startConnect(path: String) -> Result<(fd: Int32, inProgress: Bool), Failure> {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return .failure(Failure(path: path, code: ENAMETOOLONG)) }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(AF_UNIX, flags, 0)
        guard fd >= 0 else { return .failure(Failure(path: path, code: errno)) }
        var rc: Int32
        repeat {
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while rc != 0 && errno == EINTR
        if rc != 0 {
            let code = errno
            if code == EINPROGRESS { return .success((fd, true)) }
            close(fd)
            return .failure(Failure(path: path, code: code))
        }
        return .success((fd, false))
    }

    /// The outcome of a connect that was in progress (once the socket is writable).
    static func connectError(_ fd: Int32, path: String) -> Failure? {
        var code: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &len) == 0 else { return Failure(path: path, code: errno) }
        return code == 0 ? nil : Failure(path: path, code: code)
    }

    /// Refuses a program that runs as another user (root's included, unless we are root):
    /// whoever owns the socket could read what we send or feed us a made-up graph.
    static func checkPeer(_ fd: Int32, path: String) -> Failure? {
        guard let uid = SocketPath.peerUID(fd) else { return Failure(path: path, code: errno) }
        return uid == geteuid() ? nil : Failure(path: path, code: EACCES, otherUID: uid)
    }

    /// Writes all of `text` (never raising SIGPIPE); false when the peer is gone.
    static func send(_ fd: Int32, _ text: String) -> Bool {
        var t = text
        return t.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = systemSend(fd, buf.baseAddress! + off, buf.count - off, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                off += n
            }
            return true
        }
    }
}

// `UnixSocket.connect`/`send` shadow the C calls inside the enum; at file scope the unqualified
// names reach whichever C library was imported above (no module name, so every branch builds).
private func systemConnect(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ len: socklen_t) -> Int32 {
    connect(fd, addr, len)
}

private func systemSend(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int, _ flags: Int32) -> Int {
    send(fd, p, n, flags)
}

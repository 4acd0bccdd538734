#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few POSIX socket calls a viewer needs: connect to a Unix socket, send a line.
enum UnixSocket {
    /// Why a connect failed.
    struct Failure: Error, CustomStringConvertible, Sendable {
        let path: String
        let code: Int32
        var description: String { "\(path): " + String(cString: strerror(code)) }
        /// Nobody listens (a stale socket left by a killed program).
        var isStale: Bool { code == ECONNREFUSED || code == ENOENT }
    }

    /// A connected stream socket (close-on-exec), or the failure.
    static func connect(path: String) -> Result<Int32, Failure> {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return .failure(Failure(path: path, code: ENAMETOOLONG)) }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Failure(path: path, code: errno)) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 {
            let code = errno
            close(fd)
            return .failure(Failure(path: path, code: code))
        }
        return .success(fd)
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

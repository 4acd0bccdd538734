#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 POST over a plain TCP connection (`Connection: close`), for the OTLP
/// sender: a whole request within `timeout` seconds or an error saying what went wrong.
package enum HTTPPost {
    /// How a send ended.
    package enum Outcome: Equatable, Sendable {
        /// A 2xx answer.
        case delivered
        /// A 4xx answer other than 408 and 429: the collector will never take this batch.
        case refused(String)
        /// No connection, a timeout, a 5xx, 408 or 429: worth trying again later.
        case failed(String)
    }

    package static func send(
        host: String, port: Int, path: String, headers: [(name: String, value: String)], contentType: String,
        body: [UInt8], timeout: Double
    ) -> Outcome {
        let deadline = monotonicNow() + timeout
        let fd: Int32
        switch connect(host: host, port: port, deadline: deadline) {
        case .success(let f): fd = f
        case .failure(let e): return .failed(e.text)
        }
        defer { close(fd) }
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: \(contentType)\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: taskview\r\n"
        for h in headers { head += "\(h.name): \(h.value)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failed("timed out") }
            let n = request.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failed(errorText(errno))
            }
            sent += n
        }
        // The status line is all we need.
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(10) && answer.count < 8192 {
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { return .failed("timed out") }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, 4096, 0) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failed(errorText(errno))
            }
            if n == 0 { break }
            answer.append(contentsOf: buffer[..<n])
        }
        let line = String(decoding: answer.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let words = line.split(separator: " ")
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let code = Int(words[1]) else {
            return .failed(answer.isEmpty ? "connection closed without an answer" : "not an HTTP answer")
        }
        let text = "HTTP " + words.dropFirst().joined(separator: " ")
        switch code {
        case 200..<300: return .delivered
        case 408, 429: return .failed(text)
        case 400..<500: return .refused(text)
        default: return .failed(text)
        }
    }

    struct Failure: Error {
        var text: String
    }

    /// A connected non-blocking socket to the first address of `host` that answers.
    static func connect(host: String, port: Int, deadline: Double) -> Result<Int32, Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(Failure(text: "cannot resolve \(host): " + String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(first) }
        var last = "no address"
        var at: UnsafeMutablePointer<addrinfo>? = first
        while let a = at {
            at = a.pointee.ai_next
            let fd = socket(
                a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 {
                last = errorText(errno)
                continue
            }
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return .success(fd) }
            if errno == EINPROGRESS {
                if wait(fd, for: Int16(POLLOUT), until: deadline) {
                    var error: Int32 = 0
                    var size = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
                    if error == 0 { return .success(fd) }
                    last = errorText(error)
                } else {
                    last = "timed out"
                }
            } else {
                last = errorText(errno)
            }
            close(fd)
        }
        return .failure(Failure(text: last))
    }

    /// Waits until `fd` is ready for `events` or the deadline passes (false).
    static func wait(_ fd: Int32, for events: Int16, until deadline: Double) -> Bool {
        while true {
            let left = deadline - monotonicNow()
            if left <= 0 { return false }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let n = poll(&p, 1, Int32(min(left * 1000 + 1, 60_000)))
            if n > 0 { return true }
            if n < 0 && errno != EINTR { return true } // the next call reports the error
        }
    }

    /// `strerror` in lowercase words: `connection refused`.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

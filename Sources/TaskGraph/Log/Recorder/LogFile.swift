#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a log could not be opened or written.
public struct RecordingError: Error, CustomStringConvertible, Sendable {
    /// The log file's path.
    public let path: String
    /// What went wrong (the system's error text).
    public let message: String
    /// `PATH: MESSAGE`.
    public var description: String { "\(path): \(message)" }
}

/// An append-only file descriptor: earlier bytes are never rewritten.
final class LogFile {
    let path: String
    private var fd: Int32
    private(set) var failure: RecordingError?

    init(path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 {
            throw RecordingError(path: path, message: String(cString: strerror(errno)))
        }
    }

    /// Writes every byte (retrying short writes and EINTR); remembers the first failure.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard fd >= 0, failure == nil, var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = systemWrite(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                failure = RecordingError(path: path, message: String(cString: strerror(errno)))
                return
            }
            left -= n
            base += n
        }
    }

    func close() {
        if fd >= 0 { _ = systemClose(fd) }
        fd = -1
    }

    deinit { close() }
}

// `LogFile.write`/`close` shadow the C calls inside the class; at file scope the unqualified
// names reach whichever C library was imported above (no module name, so every branch builds).
private func systemWrite(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, base, count)
}

private func systemClose(_ fd: Int32) -> Int32 { close(fd) }

/// The current time of day as ISO 8601 UTC ("2026-01-31T12:00:00Z"), for log headers.
func iso8601Now() -> String {
    var t = time(nil)
    var parts = tm()
    gmtime_r(&t, &parts)
    var buf = [CChar](repeating: 0, count: 32)
    let n = strftime(&buf, buf.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

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

/// An append-only file descriptor (created 0600, `PrivateFile`): earlier bytes are never
/// rewritten.
final class LogFile {
    let path: String
    private var fd: Int32
    private(set) var failure: RecordingError?

    init(path: String) throws {
        self.path = path
        switch PrivateFile.open(path) {
        case .success(let fd): self.fd = fd
        case .failure(let e): throw RecordingError(path: path, message: e.reason)
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

    /// Closes the file; a failed close (a disk that only now says it is full) is a failure
    /// too, unless an earlier one is remembered.
    func close() {
        if fd >= 0, systemClose(fd) != 0, failure == nil {
            failure = RecordingError(path: path, message: String(cString: strerror(errno)))
        }
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
package func iso8601Now() -> String {
    var t = time(nil)
    var parts = tm()
    gmtime_r(&t, &parts)
    var buf = [CChar](repeating: 0, count: 32)
    let n = strftime(&buf, buf.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

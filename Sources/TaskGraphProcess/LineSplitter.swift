#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cuts a byte stream into lines as it arrives. A line longer than `maxLineBytes` is cut
/// there (on a UTF-8 scalar boundary) and the rest of it, up to the next newline, is
/// skipped, so memory stays bounded by one line however long the input's lines are.
/// Invalid UTF-8 becomes U+FFFD; a trailing `\r` is dropped.
struct LineSplitter {
    static let maxLineBytes = 4096

    private var pending: [UInt8] = []
    /// Inside an over-long line whose first `maxLineBytes` were already emitted.
    private var skipping = false

    init() { pending.reserveCapacity(256) }

    /// Feeds bytes; `emit` is called with every complete (or cut) line.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (String) -> Void) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let n = bytes.count
        var start = 0
        while start < n {
            let found = memchr(base + start, 10, n - start)
            let end = found.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? n
            let complete = found != nil
            let segment = UnsafeBufferPointer(start: base + start, count: end - start)
            start = complete ? end + 1 : n
            if skipping {
                if complete { skipping = false }
                continue
            }
            if pending.isEmpty && complete && segment.count <= Self.maxLineBytes {
                emit(Self.line(segment)) // the common case: no copy into `pending`
                continue
            }
            let room = Self.maxLineBytes - pending.count
            if segment.count > room {
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: segment[..<room]))
                emit(Self.cut(pending))
                pending.removeAll(keepingCapacity: true)
                skipping = !complete
            } else {
                pending.append(contentsOf: segment)
                if complete {
                    pending.withUnsafeBufferPointer { emit(Self.line($0)) }
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// Emits the last line if the stream did not end with a newline.
    mutating func finish(_ emit: (String) -> Void) {
        if !pending.isEmpty && !skipping {
            pending.withUnsafeBufferPointer { emit(Self.line($0)) }
        }
        pending.removeAll()
        skipping = false
    }

    private static func line(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var count = bytes.count
        if count > 0 && bytes[count - 1] == 13 { count -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)
    }

    /// A full `maxLineBytes` buffer as a line, without a scalar split at its end.
    private static func cut(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        // Back up over a trailing incomplete sequence: find its lead byte and check its length.
        var i = end - 1
        var continuation = 0
        while i >= 0 && continuation < 3 && bytes[i] & 0xC0 == 0x80 {
            continuation += 1
            i -= 1
        }
        if i >= 0 {
            let lead = bytes[i]
            let width = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if width > continuation + 1 { end = i }
        }
        return bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[..<end]), as: UTF8.self)
        }
    }
}

/// The last lines of a stream, at most `limit` UTF-8 bytes of them (whole lines).
struct OutputTail {
    let limit: Int
    private var lines: [String] = []
    private var head = 0
    private var bytes = 0

    init(limit: Int) { self.limit = limit }

    mutating func append(_ line: String) {
        let size = line.utf8.count + 1
        lines.append(line)
        bytes += size
        while bytes > limit, head < lines.count {
            bytes -= lines[head].utf8.count + 1
            head += 1
        }
        if head > 1024 && head * 2 > lines.count {
            lines.removeFirst(head)
            head = 0
        }
    }

    var text: String {
        var s = ""
        s.reserveCapacity(bytes)
        for l in lines[head...] {
            s += l
            s += "\n"
        }
        return s
    }

    var last: String? { head < lines.count ? lines.last : nil }
}

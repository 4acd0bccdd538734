/// A growable byte buffer with the JSON primitives the replay log needs, written by hand so
/// that encoding an event allocates nothing (doubles use `description`, which fits Swift's
/// small-string storage for every value the log writes).
package struct LogBuffer {
    package var bytes: [UInt8] = []

    package init(capacity: Int = 1 << 16) { bytes.reserveCapacity(capacity) }

    package var count: Int { bytes.count }
    package var isEmpty: Bool { bytes.isEmpty }
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    @inline(__always) package mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// Appends ASCII text that needs no escaping (keys, enum names).
    @inline(__always) package mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always) package mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A non-negative or negative integer in decimal.
    package mutating func int(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            if value == Int.min { raw("9223372036854775808"); return }
            uint(UInt64(-value))
        } else {
            uint(UInt64(value))
        }
    }

    package mutating func uint(_ value: UInt64) {
        if value < 10 { bytes.append(48 &+ UInt8(value)); return }
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes of scratch on the stack
        withUnsafeMutableBytes(of: &tmp) { buf in
            var v = value
            var i = 24
            while v > 0 {
                i -= 1
                buf[i] = 48 &+ UInt8(v % 10)
                v /= 10
            }
            bytes.append(contentsOf: buf[i..<24])
        }
    }

    /// A finite double, shortest round-trip form ("0.3", "12", "1e-07"); non-finite values
    /// (never produced by the library) are written as 0 so the line stays valid JSON.
    package mutating func double(_ value: Double) {
        guard value.isFinite else { bytes.append(48); return }
        if value == value.rounded(), abs(value) < 1e15 {
            int(Int(value))
            return
        }
        raw(value.description)
    }

    /// A JSON string literal with quotes; control characters as \u00XX.
    package mutating func string(_ s: String) {
        bytes.append(34)
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                guard c < 0x20 || c == 34 || c == 92 || c == 0x7F else { continue }
                if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
                start = i + 1
                switch c {
                case 34: raw("\\\"")
                case 92: raw("\\\\")
                case 10: raw("\\n")
                case 13: raw("\\r")
                case 9: raw("\\t")
                default:
                    raw("\\u00")
                    bytes.append(LogBuffer.hex[Int(c >> 4)])
                    bytes.append(LogBuffer.hex[Int(c & 15)])
                }
            }
            if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
        }
        bytes.append(34)
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `"key":` (key must need no escaping).
    @inline(__always) package mutating func key(_ k: StaticString) {
        bytes.append(34)
        raw(k)
        bytes.append(34)
        bytes.append(58)
    }

    /// `,"key":`
    @inline(__always) package mutating func nextKey(_ k: StaticString) {
        bytes.append(44)
        key(k)
    }

    package mutating func append(_ other: LogBuffer) { bytes.append(contentsOf: other.bytes) }

    package mutating func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

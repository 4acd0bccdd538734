/// The escapes of a JSON string (RFC 8259), decoded in one place for the replay log's
/// reader and for taskview's scenario files. Surrogate pairs are joined; a lone surrogate
/// becomes U+FFFD, and so does invalid UTF-8 (texts are sanitized before they are shown).
public enum JSONEscapes {
    /// Why a string's body cannot be decoded, at `offset` bytes into the body.
    public struct Failure: Error, Sendable, Equatable {
        /// What is wrong with the string's body.
        public enum Kind: Sendable, Equatable {
            /// A `\u` without four hex digits (`offset`: the first byte that is not one).
            case badUnicode
            /// A backslash before `byte`, which no escape starts with (`offset`: that byte).
            case badEscape(UInt8)
            /// A backslash as the body's last byte (`offset`: the end).
            case truncated
        }
        /// What is wrong.
        public let kind: Kind
        /// Bytes into the body where the problem is.
        public let offset: Int
    }

    /// Decodes `body`, the bytes between a string's quotes.
    public static func decode(_ body: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        guard body.contains(92) else { return String(decoding: body, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        func hex4(_ at: Int) throws(Failure) -> UInt32 {
            var v: UInt32 = 0
            for j in at..<at + 4 {
                guard j < body.count else { throw Failure(kind: .badUnicode, offset: j) }
                let c = body[j]
                let d: UInt32
                switch c {
                case 48...57: d = UInt32(c - 48)
                case 97...102: d = UInt32(c - 87)
                case 65...70: d = UInt32(c - 55)
                default: throw Failure(kind: .badUnicode, offset: j)
                }
                v = v << 4 | d
            }
            return v
        }
        var k = 0
        while k < body.count {
            let c = body[k]
            guard c == 92 else {
                out.append(c)
                k += 1
                continue
            }
            guard k + 1 < body.count else { throw Failure(kind: .truncated, offset: body.count) }
            let e = body[k + 1]
            k += 2
            switch e {
            case 34: out.append(34)
            case 92: out.append(92)
            case 47: out.append(47)
            case 98: out.append(8)
            case 102: out.append(12)
            case 110: out.append(10)
            case 114: out.append(13)
            case 116: out.append(9)
            case 117:
                var v = try hex4(k)
                k += 4
                // A high surrogate joins a following low one; anything else is left for later.
                if v >= 0xD800 && v < 0xDC00, k + 6 <= body.count, body[k] == 92, body[k + 1] == 117 {
                    let lo = try hex4(k + 2)
                    if lo >= 0xDC00 && lo < 0xE000 {
                        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                        k += 6
                    }
                }
                out.append(contentsOf: String(UnicodeScalar(v) ?? "\u{FFFD}").utf8)
            default: throw Failure(kind: .badEscape(e), offset: k - 1)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

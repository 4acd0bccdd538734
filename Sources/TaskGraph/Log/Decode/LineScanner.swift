#if canImport(Glibc)
    import Glibc
#endif

/// Why a line could not be read (the reader adds the line number).
struct LineError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A hand-written JSON scanner over one log line: no Foundation, no allocation except for
/// the strings it returns. Strict RFC 8259 for what it reads; nesting is bounded.
struct LineScanner {
    let base: UnsafePointer<UInt8>
    let end: Int
    var i = 0

    static let maxDepth = 64

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        end = buffer.count
    }

    @inline(__always) var peek: UInt8 { i < end ? base[i] : 0 }

    @inline(__always) mutating func skipWS() {
        while i < end {
            let c = base[i]
            guard c == 32 || c == 9 || c == 10 || c == 13 else { return }
            i += 1
        }
    }

    mutating func expect(_ c: UInt8) throws {
        skipWS()
        guard i < end, base[i] == c else {
            throw LineError("expected '\(Character(UnicodeScalar(c)))' at column \(i + 1)")
        }
        i += 1
    }

    /// After `{`: calls `body` with each key (as raw bytes) positioned at its value.
    mutating func object(_ body: (inout LineScanner, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        skipWS()
        if peek == UInt8(ascii: "}") {
            i += 1
            return
        }
        while true {
            skipWS()
            let key = try rawString()
            try expect(UInt8(ascii: ":"))
            skipWS()
            try body(&self, key)
            skipWS()
            guard i < end else { throw LineError("unterminated object") }
            let c = base[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { return }
            throw LineError("expected ',' or '}' at column \(i)")
        }
    }

    /// After `[`: calls `body` positioned at each element.
    mutating func array(_ body: (inout LineScanner) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        skipWS()
        if peek == UInt8(ascii: "]") {
            i += 1
            return
        }
        while true {
            skipWS()
            try body(&self)
            skipWS()
            guard i < end else { throw LineError("unterminated array") }
            let c = base[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return }
            throw LineError("expected ',' or ']' at column \(i)")
        }
    }

    /// The bytes of a string without escapes processed (for keys and fast compares).
    mutating func rawString() throws -> UnsafeBufferPointer<UInt8> {
        guard peek == 34 else { throw LineError("expected a string at column \(i + 1)") }
        i += 1
        let start = i
        while i < end {
            let c = base[i]
            if c == 34 {
                i += 1
                return UnsafeBufferPointer(start: base + start, count: i - 1 - start)
            }
            if c == 92 {
                i += 2
                continue
            }
            if c < 0x20 { throw LineError("control character in a string at column \(i + 1)") }
            i += 1
        }
        throw LineError("unterminated string")
    }

    /// A string value, escapes decoded; invalid UTF-8 becomes U+FFFD.
    mutating func string() throws -> String {
        do {
            return try JSONEscapes.decode(try rawString())
        } catch let f as JSONEscapes.Failure {
            switch f.kind {
            case .badUnicode: throw LineError("bad \\u escape")
            case .badEscape(let e): throw LineError("bad escape '\\\(Character(UnicodeScalar(e)))'")
            case .truncated: throw LineError("bad escape")
            }
        }
    }

    /// A JSON number as a Double (exact for what the writer prints).
    mutating func number() throws -> Double {
        let start = i
        var neg = false
        if peek == UInt8(ascii: "-") {
            neg = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exp10 = 0
        let intStart = i
        var simple = true
        while i < end, base[i] &- 48 < 10 {
            if digits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(base[i] &- 48)
                digits += 1
            } else {
                exp10 += 1
                simple = false
            }
            i += 1
        }
        guard i > intStart else { throw LineError("expected a number at column \(start + 1)") }
        if base[intStart] == 48 && i - intStart > 1 { throw LineError("leading zero at column \(start + 1)") }
        if peek == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < end, base[i] &- 48 < 10 {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(base[i] &- 48)
                    digits += 1
                    exp10 -= 1
                } else {
                    simple = false
                }
                i += 1
            }
            guard i > f else { throw LineError("bad number at column \(start + 1)") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < end, base[i] &- 48 < 10 { i += 1 }
            guard i > e else { throw LineError("bad number at column \(start + 1)") }
            simple = false
        }
        // Clinger's fast path: exact when the mantissa and the power of ten are exact doubles.
        if simple, mantissa < (1 << 53), exp10 >= -22, exp10 <= 22 {
            var v = Double(mantissa)
            if exp10 < 0 { v /= LineScanner.pow10(-exp10) } else if exp10 > 0 { v *= LineScanner.pow10(exp10) }
            return neg ? -v : v
        }
        // 17-19 significant digits (shortest forms such as 0.30000000000000004): exact.
        if simple, exp10 < 0, exp10 >= -22, let v = LineScanner.quotient(mantissa, -exp10) {
            return neg ? -v : v
        }
        return try slowNumber(from: start)
    }

    /// m / 10^k correctly rounded (to nearest, ties to even), by one 128-bit division.
    static func quotient(_ m: UInt64, _ k: Int) -> Double? {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), m > 0 else { return nil }
        let p = k <= 19 ? UInt128(pow10u64[k]) : UInt128(pow10u64[19]) &* UInt128(pow10u64[k - 19])
        let mBits = 64 - m.leadingZeroBitCount
        let pBits = 128 - p.leadingZeroBitCount
        let s = 55 + pBits - mBits // so that the quotient has at least 54 bits
        guard s >= 0, mBits + s <= 127 else { return nil }
        let (q128, r) = (UInt128(m) << s).quotientAndRemainder(dividingBy: p)
        guard q128 < UInt128(1) << 64 else { return nil }
        var q = UInt64(q128)
        var sticky = r != 0
        var e = -s
        while q >= 1 << 54 {
            sticky = sticky || q & 1 != 0
            q >>= 1
            e += 1
        }
        let roundBit = q & 1
        q >>= 1
        e += 1
        if roundBit == 1 && (sticky || q & 1 == 1) { q += 1 }
        return Double(sign: .plus, exponent: e, significand: Double(q))
    }

    static let pow10u64: [UInt64] = (0...19).map { p in
        var v: UInt64 = 1
        for _ in 0..<p { v *= 10 }
        return v
    }

    /// 10^k for k in 0...22, exact (every step is an exact double); no table, so no lazy
    /// global access on the hot path.
    @inline(__always)
    static func pow10(_ k: Int) -> Double {
        var v = 1.0
        for _ in 0..<k { v *= 10 }
        return v
    }

    private func slowNumber(from start: Int) throws -> Double {
        let count = i - start
        guard count < 400 else { throw LineError("number too long at column \(start + 1)") }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buf in
            for j in 0..<count { buf[j] = CChar(bitPattern: base[start + j]) }
            buf[count] = 0
            return strtod(buf.baseAddress!, nil)
        }
    }

    /// An integer within `range` (a fraction or an exponent is an error).
    mutating func int(_ what: String, in range: ClosedRange<Int>) throws -> Int {
        let start = i
        let v = try number()
        guard v == v.rounded(), v >= Double(range.lowerBound), v <= Double(range.upperBound) else {
            let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
            throw LineError("\(what) \(text.prefix(40)) is out of range (\(range.lowerBound)...\(range.upperBound))")
        }
        return Int(v)
    }

    mutating func bool() throws -> Bool {
        if matchLiteral("true") { return true }
        if matchLiteral("false") { return false }
        throw LineError("expected true or false at column \(i + 1)")
    }

    @inline(__always)
    mutating func matchLiteral(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= end, memcmp(base + i, s.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    /// Whether the next value is `null` (consumed if so).
    mutating func null() -> Bool { matchLiteral("null") }

    /// Skips any value (unknown fields), bounded in depth.
    mutating func skipValue(depth: Int = 0) throws {
        guard depth < LineScanner.maxDepth else { throw LineError("nesting too deep") }
        skipWS()
        switch peek {
        case 34: _ = try rawString()
        case UInt8(ascii: "{"): try object { s, _ in try s.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { s in try s.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): if !null() { throw LineError("bad literal at column \(i + 1)") }
        default: _ = try number()
        }
    }

    /// Fails unless only whitespace remains.
    mutating func finish() throws {
        skipWS()
        if i < end { throw LineError("unexpected text after the object at column \(i + 1)") }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Byte-wise equality with a static ASCII string.
    @inline(__always)
    func equals(_ s: StaticString) -> Bool {
        count == s.utf8CodeUnitCount && memcmp(baseAddress!, s.utf8Start, count) == 0
    }
}

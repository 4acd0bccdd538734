import Testing
@testable import TaskGraph

/// The log's `t` values (seconds on a clock since recording started) are written by
/// `ShortestDecimal`'s guessed search exactly as `Double.description` writes them.
@Suite struct ClockTimeEncodingTests {
    private func text(_ v: Double) -> String {
        var b = LogBuffer()
        b.double(v)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    @Test func clockTimesAndEveryMagnitudeAreWrittenAsDescriptionWritesThem() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {   // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var values: [Double] = [0.05, 0.125, 0.1 + 0.2, 1e-4 * 3, 0.00012345678901234567,
                                99999999999999.9, 123456789012.345, 1.0000000000000002]
        let start = Double(next() % 1_000_000) + 0.123_456_789
        for _ in 0..<30_000 {
            let unit = Double(next() >> 11) / Double(1 << 53)
            // A monotonic clock's reading minus the start: nanoseconds on a large base.
            let now = start + unit * 3600 + Double(next() % 1_000_000_000) * 1e-9
            values.append(now - start)
            values.append(now)
            // Every magnitude from 1e-4 to 1e15.
            let exponent = Double(next() % 19) - 4
            values.append(unit * Double.pow10(exponent))
        }
        var mismatches: [String] = []
        for v in values where v >= 1e-4 && v < 1e15 && v != v.rounded(.towardZero) && mismatches.count < 5 {
            if text(v) != v.description { mismatches.append("\(v.description) written as \(text(v))") }
        }
        #expect(mismatches.isEmpty)
    }
}

private extension Double {
    static func pow10(_ e: Double) -> Double {
        var v = 1.0
        if e >= 0 { for _ in 0..<Int(e) { v *= 10 } } else { for _ in 0..<Int(-e) { v /= 10 } }
        return v
    }
}

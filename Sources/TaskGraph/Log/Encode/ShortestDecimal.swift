/// The shortest decimal that reads back as a given double (the closest one when several
/// have that length), found exactly with 128-bit integers: what `Double.description`
/// prints for 1e-4 ≤ v < 1e15, without building a String. Nil in the rare case of two
/// candidates exactly as close, which `description` then settles.
struct ShortestDecimal {
    /// v = integer + fraction / 10^places, fraction without trailing zeros.
    var integer: UInt64
    var fraction: UInt64
    var places: Int

    /// `v`: finite, positive, not an integer, 1e-4 ≤ v < 1e15.
    init?(_ v: Double) {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return nil }
        let bits = v.bitPattern
        let biased = Int(truncatingIfNeeded: (bits >> 52) & 0x7FF)
        let shift = 1075 - biased // v = mantissa × 2^-shift
        guard biased > 0, shift > 0, shift <= 80 else { return nil }
        let mantissa = UInt128((bits & ((1 << 52) - 1)) | (1 << 52))
        // At a power of two the next double below is half as far as the one above.
        let lowScale = mantissa == 1 << 52 ? 2 : 1
        let inclusive = mantissa & 1 == 0
        let one = UInt128(1) << shift
        let mask = one &- 1

        /// At `places` decimals: 0 none reads back, 1 floor does (and is closer), 2 ceil
        /// does (and is closer), -1 both are exactly as close.
        func probe(_ places: Int) -> Int {
            let power = ShortestDecimal.pow10(places)
            let scaled = mantissa &* power // v × 10^places × 2^shift, exact
            // Candidates: floor and ceil of v × 10^places. One reads back as v when it lies
            // within half the gap to the neighbouring doubles: 2·|m − v·10^p| < 10^p (× 2^shift).
            let below = scaled & mask
            let above = one &- below
            let lowTwice = below << lowScale
            let highTwice = above << 1
            // Exactly halfway between two doubles reads back as the one with an even mantissa.
            let lowOK = lowTwice < power || (inclusive && lowTwice == power)
            let highOK = below != 0 && (highTwice < power || (inclusive && highTwice == power))
            if lowOK && highOK {
                if below == above { return -1 }
                return above < below ? 2 : 1
            }
            return lowOK ? 1 : highOK ? 2 : 0
        }

        // Reading back is monotone in the number of places (m at p gives 10·m at p + 1),
        // so the fewest places is a search; 22 always suffices from 1e-4 up. It starts at a
        // guess of 16 significant digits, next to what most doubles need (times on a clock,
        // the bulk of a log's numbers): the guess and one neighbour settle 16 or 17 digits
        // in two probes, where a binary search over 1...22 took six; anything else
        // continues as that binary search. A tie (-1) leaves it to `description`, which
        // prints the same digits.
        let guess = min(21, max(2, 16 - ShortestDecimal.integerDigits(v)))
        var lo = 1
        var hi = 22
        var found: (places: Int, r: Int)?
        let atGuess = probe(guess)
        if atGuess < 0 { return nil }
        if atGuess > 0 {
            let below = probe(guess - 1)
            if below < 0 { return nil }
            if below == 0 { found = (guess, atGuess) } else { hi = guess - 1 }
        } else {
            let above = probe(guess + 1)
            if above < 0 { return nil }
            if above > 0 { found = (guess + 1, above) } else { lo = guess + 2 }
        }
        if found == nil {
            while lo < hi {
                let mid = (lo + hi) / 2
                let r = probe(mid)
                if r < 0 { return nil }
                if r > 0 { hi = mid } else { lo = mid + 1 }
            }
            let r = probe(lo)
            guard r > 0 else { return nil }
            found = (lo, r)
        }
        guard let (places, r) = found else { return nil }
        let power = ShortestDecimal.pow10(places)
        let m = ((mantissa &* power) >> shift) &+ (r == 2 ? 1 : 0)
        let integer = UInt64(v.rounded(.towardZero))
        guard m >= UInt128(integer) &* power else { return nil }
        let fraction = m &- UInt128(integer) &* power
        guard fraction < power, fraction <= UInt128(UInt64.max) else { return nil }
        var f = UInt64(fraction)
        var p = places
        while p > 1, f % 10 == 0 {
            f /= 10
            p -= 1
        }
        self.integer = integer
        self.fraction = f
        self.places = p
    }

    /// Digits before the point (1 for v < 10), or for v < 1 minus the zeros after it
    /// (0 for 0.5, -1 for 0.05): only a guess's input, any answer is correct.
    @inline(__always)
    static func integerDigits(_ v: Double) -> Int {
        if v >= 1 {
            var d = 1
            while d < 16, v >= pow10double[d] { d += 1 }
            return d
        }
        var d = 0
        var limit = 0.1
        while d > -4, v < limit {
            d -= 1
            limit /= 10
        }
        return d
    }

    static let pow10double: [Double] = (0...17).map { p in
        var v = 1.0
        for _ in 0..<p { v *= 10 }
        return v
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @inline(__always)
    static func pow10(_ p: Int) -> UInt128 {
        p <= 19 ? UInt128(pow10u64[p]) : UInt128(pow10u64[19]) &* UInt128(pow10u64[p - 19])
    }

    static let pow10u64: [UInt64] = (0...19).map { p in
        var v: UInt64 = 1
        for _ in 0..<p { v *= 10 }
        return v
    }
}

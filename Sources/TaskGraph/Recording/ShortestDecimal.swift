/// The shortest decimal that reads back as a given double (the closest one when several
/// have that length), found exactly with 128-bit integers: what `Double.description`
/// prints for 1e-4 ≤ v < 1e15, without building a String. Nil when the answer needs a
/// tie-break (an exact halfway point), which `description` then settles.
struct ShortestDecimal {
    /// v = integer + fraction / 10^places, fraction without trailing zeros.
    var integer: UInt64
    var fraction: UInt64
    var places: Int

    /// `v`: finite, positive, not an integer, below 2^53.
    @inline(__always)
    init?(_ v: Double) {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return nil }
        let bits = v.bitPattern
        let biased = Int(truncatingIfNeeded: (bits >> 52) & 0x7FF)
        let shift = 1075 - biased   // v = mantissa × 2^-shift
        guard biased > 0, shift > 0, shift <= 80 else { return nil }
        let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52)
        // At a power of two the next double below is half as far as the one above.
        let lowScale = mantissa == 1 << 52 ? 2 : 1
        let one = UInt128(1) << shift
        let mask = one &- 1
        var scaled = UInt128(mantissa)   // v × 10^places × 2^shift, exact
        var power: UInt128 = 1           // 10^places
        for places in 1...22 {
            scaled &*= 10
            power &*= 10
            // Candidates: floor and ceil of v × 10^places. One reads back as v when it lies
            // within half the gap to the neighbouring doubles: 2·|m − v·10^p| < 10^p (× 2^shift).
            let below = scaled & mask
            let above = one &- below
            let lowTwice = below << lowScale
            let highTwice = above << 1
            if lowTwice == power || highTwice == power { return nil }   // tie: rounding decides
            let lowOK = lowTwice < power
            let highOK = below != 0 && highTwice < power
            guard lowOK || highOK else { continue }
            var up = highOK
            if lowOK && highOK {
                if below == above { return nil }
                up = above < below
            }
            let m = (scaled >> shift) &+ (up ? 1 : 0)
            guard m <= UInt128(UInt64.max) else { return nil }
            let integer = UInt64(v.rounded(.towardZero))
            let fraction = m &- UInt128(integer) &* power
            guard fraction < power, fraction <= UInt128(UInt64.max) else { return nil }
            var f = UInt64(fraction)
            var p = places
            while p > 1, f % 10 == 0 { f /= 10; p -= 1 }
            self.integer = integer
            self.fraction = f
            self.places = p
            return
        }
        return nil
    }
}

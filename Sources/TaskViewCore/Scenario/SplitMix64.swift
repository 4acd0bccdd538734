/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, well-mixed generator. Scenarios draw
/// all their randomness from it, seeded per node and attempt, never from the system.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in [0, 1) with 53 random bits.
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// The generator of one node's attempt: seeded by (seed, path, attempt) through FNV-1a
    /// and SplitMix mixing, so cancelling or adding draws elsewhere changes nothing here.
    package init(seed: UInt64, path: String, attempt: Int) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in path.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        var mix = SplitMix64(seed: seed ^ 0x5851_F42D_4C95_7F2D)
        let a = mix.next()
        var mix2 = SplitMix64(seed: h &+ a)
        let b = mix2.next()
        var mix3 = SplitMix64(seed: b ^ UInt64(truncatingIfNeeded: attempt) &* 0x2545_F491_4F6C_DD1D)
        state = mix3.next()
    }
}

/// The `PatternProgram`'s sets in the form the `PikeVM` tests a scalar against in a few
/// steps: a bitmap for ASCII (most lines), sorted ranges searched by halves for the rest, and
/// each Unicode class looked up at most once per scalar (`ClassCache`, `ClassBitmaps`) however
/// many sets and threads ask.
struct ScalarSetTable {
    /// Per set, which ASCII scalars it holds: two words of bits.
    private var ascii: [UInt64] = []
    /// Per set, its ranges above ASCII, sorted and merged: `rangeStart[k]..<rangeStart[k + 1]`
    /// of `ranges`.
    private var rangeStart: [Int] = [0]
    private var ranges: [ClosedRange<UInt32>] = []
    /// Per set, its classes (`classStart[k]..<classStart[k + 1]` of `classes`): a bit of
    /// `ClassCache` and whether it is negated.
    private var classStart: [Int] = [0]
    private var classes: [(bit: Int, negated: Bool)] = []
    private var negated: [Bool] = []

    static let allClasses: [ScalarClass] = [
        .digit, .word, .space, .alpha, .alnum, .upper, .lower, .punct, .xdigit, .cntrl, .print, .graph, .blank,
    ]

    init(_ sets: [ScalarSet]) {
        for set in sets {
            var bits: (UInt64, UInt64) = (0, 0)
            for v in 0..<128 where set.contains(Unicode.Scalar(UInt8(v))) {
                if v < 64 { bits.0 |= 1 << UInt64(v) } else { bits.1 |= 1 << UInt64(v - 64) }
            }
            ascii += [bits.0, bits.1]
            var merged: [ClosedRange<UInt32>] = []
            for r in set.ranges.filter({ $0.upperBound >= 128 }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
                let r = max(128, r.lowerBound)...r.upperBound
                if let last = merged.last, r.lowerBound <= last.upperBound &+ 1 {
                    merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
                } else {
                    merged.append(r)
                }
            }
            ranges += merged
            rangeStart.append(ranges.count)
            var seen: Set<Int> = []
            for (c, neg) in set.classes {
                let bit = Self.allClasses.firstIndex(of: c)!
                if seen.insert(neg ? -1 - bit : bit).inserted { classes.append((bit, neg)) }
            }
            classStart.append(classes.count)
            negated.append(set.negated)
        }
    }

    /// The classes (`ClassCache` bits) any set uses.
    var classBits: Set<Int> { Set(classes.map(\.bit)) }

    /// Whether set `k` holds `s` (`value` is its number).
    func contains(_ k: Int, _ s: Unicode.Scalar, _ value: Int, cache: inout ClassCache) -> Bool {
        if value < 128 {
            return ascii[2 * k + value >> 6] & (1 << UInt64(value & 63)) != 0
        }
        var hit = false
        var lo = rangeStart[k]
        var hi = rangeStart[k + 1]
        let v = UInt32(value)
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid].upperBound < v {
                lo = mid + 1
            } else if ranges[mid].lowerBound > v {
                hi = mid
            } else {
                hit = true
                break
            }
        }
        if !hit {
            for c in classes[classStart[k]..<classStart[k + 1]] where cache.holds(c.bit, s) != c.negated {
                hit = true
                break
            }
        }
        return hit != negated[k]
    }
}

/// Which classes hold the scalar at the current position, looked up on demand; `reset` at
/// every new position.
struct ClassCache {
    private var known: UInt32 = 0
    private var value: UInt32 = 0

    mutating func reset() {
        known = 0
    }

    mutating func holds(_ bit: Int, _ s: Unicode.Scalar) -> Bool {
        let mask: UInt32 = 1 << UInt32(bit)
        if known & mask == 0 {
            known |= mask
            if ClassBitmaps.contains(bit, s) { value |= mask } else { value &= ~mask }
        }
        return value & mask != 0
    }
}

/// Each class's members in the Basic Multilingual Plane as a bitmap, made once per process on
/// first use (a few ms each): a Unicode property lookup costs as much as ten VM steps, a
/// bitmap test less than one. Scalars above it (4 bytes in UTF-8) are looked up, which
/// `PatternProgram.cost` counts.
enum ClassBitmaps {
    /// Makes the bitmaps of these classes now (when a pattern is compiled, not on a line).
    static func prepare(_ bits: some Sequence<Int>) {
        for bit in bits { _ = table(bit) }
    }

    static func contains(_ bit: Int, _ s: Unicode.Scalar) -> Bool {
        let v = Int(s.value)
        guard v < 0x10000 else { return ScalarSetTable.allClasses[bit].contains(s) }
        return table(bit)[v >> 6] & (1 << UInt64(v & 63)) != 0
    }

    private static func table(_ bit: Int) -> [UInt64] {
        switch bit {
        case 0: return digit
        case 1: return word
        case 2: return space
        case 3: return alpha
        case 4: return alnum
        case 5: return upper
        case 6: return lower
        case 7: return punct
        case 8: return xdigit
        case 9: return cntrl
        case 10: return print
        case 11: return graph
        default: return blank
        }
    }

    // Globals are made once, thread-safely, on first use.
    private static let digit = make(.digit)
    private static let word = make(.word)
    private static let space = make(.space)
    private static let alpha = make(.alpha)
    private static let alnum = make(.alnum)
    private static let upper = make(.upper)
    private static let lower = make(.lower)
    private static let punct = make(.punct)
    private static let xdigit = make(.xdigit)
    private static let cntrl = make(.cntrl)
    private static let print = make(.print)
    private static let graph = make(.graph)
    private static let blank = make(.blank)

    private static func make(_ c: ScalarClass) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: 0x10000 / 64)
        for v in 0..<0x10000 {
            if let s = Unicode.Scalar(UInt32(v)), c.contains(s) { words[v >> 6] |= 1 << UInt64(v & 63) }
        }
        return words
    }
}

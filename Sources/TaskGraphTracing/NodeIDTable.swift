/// Node id -> slot number: open addressing, Robin Hood insertion, backward-shift deletion.
/// A removal leaves no tombstone: in steady state (nodes added and settled at the same rate)
/// nothing is allocated. Not thread-safe; its owner locks.
///
/// A graph numbers its nodes in order, so the ids alive at once mostly form a few runs. The
/// hash keeps a run's ids in neighbouring buckets (the low bits, folded with the bits above
/// them, which spreads ids a multiple of the table's size apart), and a bucket holds its key
/// and its slot together: a lookup of a recent id reads a line the last one read, where a
/// multiplicative hash sent every lookup in a 10,000-node tree to another cache line (7 % of
/// the tracing thread's time, W5). Robin Hood order (no entry is further from its home than
/// the one it passed) lets a lookup and a removal stop at the first entry that sits nearer
/// its home: with plain linear probing and this hash, a removal walked every live id after it.
struct NodeIDTable {
    private struct Bucket {
        var key: Int // -1: empty
        var slot: Int32
    }

    private var buckets: [Bucket]
    private var bits: Int // log2(bucket count)
    private(set) var count = 0

    init() {
        bits = 6
        buckets = Array(repeating: Bucket(key: -1, slot: 0), count: 1 << bits)
    }

    /// The bucket where `id`'s probe starts, in a table of `1 << bits` buckets.
    @inline(__always)
    private static func home(_ id: Int, _ bits: Int) -> Int {
        let u = UInt(bitPattern: id)
        return Int(truncatingIfNeeded: u ^ (u >> UInt(bits))) & ((1 << bits) - 1)
    }

    /// Where `id` is, or nil.
    @inline(__always)
    private static func position(of id: Int, in b: UnsafeBufferPointer<Bucket>, _ bits: Int) -> Int? {
        let mask = b.count - 1
        var i = home(id, bits)
        var distance = 0
        while true {
            let k = b[i].key
            if k == id { return i }
            // Empty, or an entry nearer its home than `id` would be here: `id` is not stored.
            if k < 0 || (i &- home(k, bits)) & mask < distance { return nil }
            i = (i + 1) & mask
            distance += 1
        }
    }

    /// The slot of `id`, or nil.
    func find(_ id: Int) -> Int32? {
        let bits = bits
        return buckets.withUnsafeBufferPointer { b in
            Self.position(of: id, in: b, bits).map { b[$0].slot }
        }
    }

    /// Maps `id` (not present, non-negative) to `slot`. The caller has just looked it up
    /// (`SpanTable.add`), so it is not looked up again.
    mutating func insert(_ id: Int, _ slot: Int32) {
        assert(find(id) == nil, "id \(id) is in the table already")
        if (count + 1) * 2 > buckets.count { grow() }
        place(Bucket(key: id, slot: slot))
        count += 1
    }

    /// Puts an absent key in: it takes the bucket of the first entry nearer its home than
    /// the carried one is to its own, which is carried on.
    private mutating func place(_ entry: Bucket) {
        let bits = bits
        buckets.withUnsafeMutableBufferPointer { b in
            let mask = b.count - 1
            var carried = entry
            var i = Self.home(carried.key, bits)
            var distance = 0
            while b[i].key >= 0 {
                let theirs = (i &- Self.home(b[i].key, bits)) & mask
                if theirs < distance {
                    swap(&carried, &b[i])
                    distance = theirs
                }
                i = (i + 1) & mask
                distance += 1
            }
            b[i] = carried
        }
    }

    /// Removes `id`; returns its slot, or nil if absent.
    mutating func remove(_ id: Int) -> Int32? {
        let bits = bits
        let removed: Int32? = buckets.withUnsafeMutableBufferPointer { b in
            guard var hole = Self.position(of: id, in: UnsafeBufferPointer(b), bits) else { return nil }
            let slot = b[hole].slot
            // Later entries away from their home move one back, up to the first at its home.
            let mask = b.count - 1
            var j = (hole + 1) & mask
            while b[j].key >= 0, Self.home(b[j].key, bits) != j {
                b[hole] = b[j]
                hole = j
                j = (j + 1) & mask
            }
            b[hole].key = -1
            return slot
        }
        if removed != nil { count -= 1 }
        return removed
    }

    /// Every (id, slot) pair, in no order.
    func forEach(_ body: (Int, Int32) -> Void) {
        for bucket in buckets where bucket.key >= 0 { body(bucket.key, bucket.slot) }
    }

    /// The furthest any entry sits from its home bucket (for tests: lookups stay short).
    var longestProbe: Int {
        let mask = buckets.count - 1
        var longest = 0
        for (i, bucket) in buckets.enumerated() where bucket.key >= 0 {
            longest = max(longest, (i &- Self.home(bucket.key, bits)) & mask)
        }
        return longest
    }

    mutating func removeAll() {
        for i in buckets.indices { buckets[i].key = -1 }
        count = 0
    }

    private mutating func grow() {
        let old = buckets
        bits += 1
        buckets = Array(repeating: Bucket(key: -1, slot: 0), count: 1 << bits)
        for bucket in old where bucket.key >= 0 { place(bucket) }
    }
}

/// Node id -> slot number, open addressing with linear probing and backward-shift deletion.
/// Node ids are Ints, so a multiplicative hash replaces `Dictionary`'s SipHash, and a removal
/// leaves no tombstone: in steady state (nodes added and settled at the same rate) nothing
/// is allocated. Not thread-safe; its owner locks.
struct NodeIDTable {
    private var keys: [Int]      // -1: empty bucket
    private var values: [Int32]
    private var shift: Int       // 64 - log2(bucket count)
    private(set) var count = 0

    init() {
        keys = Array(repeating: -1, count: 64)
        values = Array(repeating: 0, count: 64)
        shift = 64 - 6
    }

    @inline(__always)
    private func home(_ id: Int) -> Int {
        // Fibonacci hashing: the top bits of id × 2^64/φ spread consecutive ids evenly.
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: id)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The slot of `id`, or nil.
    func find(_ id: Int) -> Int32? {
        let mask = keys.count - 1
        var b = home(id)
        while true {
            let k = keys[b]
            if k == id { return values[b] }
            if k < 0 { return nil }
            b = (b + 1) & mask
        }
    }

    /// Maps `id` (not present, non-negative) to `slot`.
    mutating func insert(_ id: Int, _ slot: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var b = home(id)
        while keys[b] >= 0 {
            if keys[b] == id { values[b] = slot; return }
            b = (b + 1) & mask
        }
        keys[b] = id
        values[b] = slot
        count += 1
    }

    /// Removes `id`; returns its slot, or nil if absent.
    mutating func remove(_ id: Int) -> Int32? {
        let mask = keys.count - 1
        var hole = home(id)
        while keys[hole] != id {
            if keys[hole] < 0 { return nil }
            hole = (hole + 1) & mask
        }
        let slot = values[hole]
        // Pull later entries of the run back into the hole unless that would put one before
        // its home bucket, so lookups never need tombstones.
        var j = hole
        while true {
            j = (j + 1) & mask
            let k = keys[j]
            if k < 0 { break }
            if (j - home(k)) & mask >= (j - hole) & mask {
                keys[hole] = k
                values[hole] = values[j]
                hole = j
            }
        }
        keys[hole] = -1
        count -= 1
        return slot
    }

    /// Every (id, slot) pair, in no order.
    func forEach(_ body: (Int, Int32) -> Void) {
        for b in keys.indices where keys[b] >= 0 { body(keys[b], values[b]) }
    }

    mutating func removeAll() {
        for b in keys.indices { keys[b] = -1 }
        count = 0
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: -1, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for b in oldKeys.indices where oldKeys[b] >= 0 { insert(oldKeys[b], oldValues[b]) }
    }
}

/// The running children of a scope (`ScopeDriver`), by the index their parent gave them: an
/// open-addressing table with linear probing whose home bucket is the index itself (masked).
/// A scope numbers its children in order, so the running ones spread over distinct buckets
/// and a look-up is one probe, with no hashing (a `Dictionary` of them cost ~700 instructions
/// a child: SipHash, its growth and shrinking). It holds as many buckets as about twice the
/// running children: a long-lived scope that made millions keeps only the running ones.
struct LiveChildren {
    /// One running child: its task, its weight and the fraction counted for it so far.
    struct Entry {
        let task: AnyGraphTask
        var weight: Double
        var counted: Double
    }

    private typealias Bucket = (key: Int, entry: Entry)?

    /// A power of two long (or empty), at most half full.
    private var buckets = ContiguousArray<Bucket>()
    /// How many children are kept.
    private(set) var count = 0

    private var mask: Int { buckets.count &- 1 }

    /// The bucket that holds `key`, if any.
    private func bucket(of key: Int) -> Int? {
        guard count > 0 else { return nil }
        var i = key & mask
        while let b = buckets[i] {
            if b.key == key { return i }
            i = (i &+ 1) & mask
        }
        return nil
    }

    /// The child numbered `key`, if it runs.
    subscript(key: Int) -> Entry? {
        guard let i = bucket(of: key) else { return nil }
        return buckets[i]!.entry
    }

    /// Keeps `entry` as the child numbered `key` (not kept yet).
    mutating func insert(_ key: Int, _ entry: Entry) {
        if (count &+ 1) &* 2 > buckets.count { resize(to: Swift.max(8, buckets.count &* 2)) }
        var i = key & mask
        while buckets[i] != nil { i = (i &+ 1) & mask }
        buckets[i] = (key, entry)
        count &+= 1
        debugOnly { assert(count &* 2 <= buckets.count, "LiveChildren: more than half full") }
    }

    /// Replaces the entry of the child numbered `key`, if it runs.
    mutating func update(_ key: Int, _ entry: Entry) {
        guard let i = bucket(of: key) else { return }
        buckets[i] = (key, entry)
    }

    /// Lets go of the child numbered `key` and returns its entry, if it ran.
    mutating func remove(_ key: Int) -> Entry? {
        guard var i = bucket(of: key) else { return nil }
        let entry = buckets[i]!.entry
        buckets[i] = nil
        count &-= 1
        // Backward-shift deletion: move up every later entry of the run that may sit in the
        // emptied bucket, so that a probe never stops early at a hole.
        var j = i
        while true {
            j = (j &+ 1) & mask
            guard let b = buckets[j] else { break }
            let home = b.key & mask
            // `home` lies cyclically in (i, j]: the entry stays where it is.
            let stays = i <= j ? (home > i && home <= j) : (home > i || home <= j)
            if stays { continue }
            buckets[i] = b
            buckets[j] = nil
            i = j
        }
        if buckets.count > 64 && count &* 8 < buckets.count { resize(to: buckets.count / 2) }
        debugOnly { assert(count >= 0 && count &* 2 <= buckets.count, "LiveChildren: count \(count)") }
        return entry
    }

    /// Every kept entry with its number, in no particular order.
    func forEach(_ body: (_ key: Int, _ entry: Entry) throws -> Void) rethrows {
        guard count > 0 else { return }
        for case (let key, let entry)? in buckets { try body(key, entry) }
    }

    private mutating func resize(to capacity: Int) {
        let old = buckets
        buckets = ContiguousArray(repeating: nil, count: capacity)
        let m = capacity &- 1
        for case (let key, let entry)? in old {
            var i = key & m
            while buckets[i] != nil { i = (i &+ 1) & m }
            buckets[i] = (key, entry)
        }
        assertInvariants() // O(buckets), as the resize is
    }

    /// What is wrong with the table, or nil: a power-of-two number of buckets (or none), at
    /// most half full, `count` entries, each key once, and each entry reachable from its home
    /// bucket without crossing an empty one (what backward-shift deletion keeps). O(buckets):
    /// debug builds check it after each resize (`assertInvariants`), and the load after each
    /// insert and remove.
    func verifyInvariants() -> String? {
        if !buckets.isEmpty && buckets.count & mask != 0 { return "\(buckets.count) buckets, not a power of two" }
        if count &* 2 > buckets.count { return "\(count) entries in \(buckets.count) buckets: more than half full" }
        var seen = Set<Int>()
        for (at, bucket) in buckets.enumerated() {
            guard let (key, _) = bucket else { continue }
            if !seen.insert(key).inserted { return "key \(key) kept twice" }
            var i = key & mask
            while i != at {
                if buckets[i] == nil { return "key \(key) in bucket \(at), behind an empty bucket \(i)" }
                i = (i &+ 1) & mask
            }
        }
        if seen.count != count { return "\(seen.count) entries, count says \(count)" }
        return nil
    }

    /// Asserts `verifyInvariants()` (debug builds; nothing in release).
    @inline(__always)
    func assertInvariants(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            if let problem = verifyInvariants() {
                assertionFailure("LiveChildren: \(problem)", file: file, line: line)
            }
        }
    }
}

/// `TreeModel`'s nodes by id: an array while ids stay dense (every access an index, as
/// before), and a dictionary for ids far beyond the nodes present, so a log or a socket
/// naming node 16,777,215 costs one entry, not sixteen million. The array covers a window of
/// ids (`base` on): when the oldest half of it holds almost nothing but dropped nodes (a
/// long-running program whose finished roots are dropped), that half is let go and its few
/// live nodes move to the dictionary, so a long attach session holds what is live, not a
/// slot for every id the program ever used.
package struct TreeNodeStore: Sendable {
    private var dense: [TreeModel.Node] = []
    /// The id of `dense[0]`.
    private var base = 0
    /// Nodes dropped since the window was last checked.
    private var dropsSinceTrim = 0
    private var far: [Int: TreeModel.Node] = [:]
    private var farMax = -1
    /// At most the smallest far id (the array's growth moves far ids it reaches).
    private var farMin = Int.max
    /// Ids made room for (`ensure` calls that added a slot): the array may only grow to
    /// about twice this, so a ladder of ids (4,095, 12,286, 28,668, ...) cannot double it
    /// per node.
    private var ensured = 0
    private static let absent = TreeModel.Node()

    init() {}

    /// One past the largest id ever stored (ids below may be absent: `exists` is false).
    package var count: Int { Swift.max(base + dense.count, farMax + 1) }

    /// Slots actually held (tests: memory follows the nodes, not the ids).
    var storedCount: Int { dense.count + far.count }

    /// Ids of the slots held, ascending: every node present is among them (absent ones
    /// too: check `exists`). A pass over the nodes walks these, never `0..<count`, which a
    /// single huge id makes billions long.
    package var ids: IDs {
        let sorted = far.isEmpty ? [] : far.keys.sorted()
        let low = sorted.prefix { $0 < base }.count
        return IDs(base: base, denseCount: dense.count, far: sorted, farLow: low)
    }

    /// The ids of `TreeNodeStore.ids`: far ids below the window, the window's, then far ids above.
    package struct IDs: Sequence, Sendable {
        let base: Int
        let denseCount: Int
        let far: [Int]
        let farLow: Int

        package func makeIterator() -> Iterator { Iterator(ids: self) }

        package struct Iterator: IteratorProtocol {
            let ids: IDs
            var k = 0

            package mutating func next() -> Int? {
                defer { k += 1 }
                if k < ids.farLow { return ids.far[k] }
                let d = k - ids.farLow
                if d < ids.denseCount { return ids.base + d }
                let f = d - ids.denseCount + ids.farLow
                return f < ids.far.count ? ids.far[f] : nil
            }
        }
    }

    /// The ids held in the array (filter masks size themselves by it).
    var denseRange: Range<Int> { base..<(base + dense.count) }

    package subscript(_ id: Int) -> TreeModel.Node {
        // Borrowed, not copied: `nodes[i].state` must not retain and release every string
        // and array of the node (a third of the time of absorbing an attach snapshot).
        _read {
            let k = id &- base
            if k >= 0 && k < dense.count {
                yield dense[k]
            } else if far.isEmpty {
                yield Self.absent
            } else {
                yield far[id] ?? Self.absent
            }
        }
        _modify {
            let k = id &- base
            if k >= 0 && k < dense.count {
                yield &dense[k]
            } else {
                var node = far[id] ?? Self.absent
                yield &node
                far[id] = node.exists ? node : nil
            }
        }
        set {
            let k = id &- base
            if k >= 0 && k < dense.count { dense[k] = newValue } else { far[id] = newValue.exists ? newValue : nil }
        }
    }

    /// `body` on node `id`, borrowed (absent: an absent node). The hot paths use this, not
    /// the subscript: the subscript's coroutine is called out of line and allocates its
    /// frame on the heap, a malloc and a free per `nodes[i].field` of every event absorbed.
    @inline(__always)
    func read<R>(_ id: Int, _ body: (TreeModel.Node) -> R) -> R {
        let k = id &- base
        return k >= 0 && k < dense.count ? body(dense[k]) : body(self[id])
    }

    /// The weight of node `id` and how much of it is done (1 once it succeeded, else its
    /// fraction); (0, 0) for an absent node. Read in place: a parent's bar reads these of
    /// every child, and `read` handed its closure a copy of each node (a retain of each of
    /// its strings and arrays).
    func weightAndDone(_ id: Int) -> (weight: Double, done: Double) {
        let k = id &- base
        guard k >= 0 && k < dense.count else {
            guard let n = far[id] else { return (0, 0) }
            return (n.weight, n.state == .completed && !n.failed ? 1 : n.fraction)
        }
        return dense.withUnsafeBufferPointer { b in
            b[k].exists ? (b[k].weight, b[k].state == .completed && !b[k].failed ? 1 : b[k].fraction) : (0, 0)
        }
    }

    /// `body` on node `id`, in place (see `read`).
    @inline(__always)
    mutating func update<R>(_ id: Int, _ body: (inout TreeModel.Node) -> R) -> R {
        let k = id &- base
        return k >= 0 && k < dense.count ? body(&dense[k]) : body(&self[id])
    }

    /// Makes room for `id`: the array grows while ids stay dense; others go to the dictionary.
    mutating func ensure(_ id: Int) {
        let k = id &- base
        guard k >= dense.count || k < 0 else { return }
        ensured += 1
        if k >= 0 && k < 2 * ensured + 4096 {
            // Plain appends: the array doubles its capacity by itself.
            while dense.count <= k { dense.append(Self.absent) }
            let end = base + dense.count
            if farMin < end, farMax >= base {
                for (i, v) in far where i >= base && i < end {
                    dense[i - base] = v
                    far[i] = nil
                }
                farMin = far.keys.min() ?? .max
            }
        } else {
            farMax = Swift.max(farMax, id)
            farMin = Swift.min(farMin, id)
        }
    }

    /// After `n` nodes were dropped: when the oldest half of the window holds almost only
    /// dropped nodes, lets it go (its few live nodes move to the dictionary). Checked once
    /// per 4,096 drops, so the scan costs each drop a constant share.
    mutating func noteDropped(_ n: Int) {
        dropsSinceTrim += n
        guard dropsSinceTrim >= 4096 else { return }
        dropsSinceTrim = 0
        let half = dense.count / 2
        guard half >= 4096 else { return }
        var live: [Int] = []
        for k in 0..<half where dense[k].exists {
            live.append(k)
            if live.count > half / 64 { return }
        }
        for k in live {
            far[base + k] = dense[k]
            farMin = Swift.min(farMin, base + k)
            farMax = Swift.max(farMax, base + k)
        }
        dense.removeFirst(half)
        base += half
    }
}

/// Subtree counts rolled up once for many events. Updating every ancestor per event costs
/// O(depth) an event, O(depth²) for a chain: a 100,000-deep log took minutes to report. While
/// deferred, each change is kept at the node it starts from and `flushRollUp` carries the sums
/// up in one pass, touching each affected node once (O(nodes touched), no recursion).
extension TreeModel {
    /// Runs `body` (events absorbed in a batch) with the subtree counts brought up to date
    /// once at the end, and children's positions (`index`) renumbered once. Nothing in `body`
    /// may read `subtree` (the counts lag until then), nor `index` without `flushReindex()`.
    package mutating func withDeferredRollUp<R>(_ body: (inout TreeModel) throws -> R) rethrows -> R {
        if pendingRollUp != nil { return try body(&self) } // already deferring: the outer call flushes
        pendingRollUp = [:]
        defer {
            flushRollUp()
            pendingRollUp = nil
            flushReindex()
        }
        return try body(&self)
    }

    /// Keeps `delta` for `p` and its ancestors until `flushRollUp`; false when not deferring.
    @inline(__always)
    mutating func deferRollUp(from p: Int, _ delta: SubtreeCounts) -> Bool {
        guard pendingRollUp != nil else { return false }
        pendingRollUp![Int32(p), default: SubtreeCounts()] &+= delta
        return true
    }

    /// Applies the kept deltas: each touched node gets the sum of the deltas kept at it and
    /// below it, counted from the touched nodes with no touched child upwards (a topological
    /// pass over the paths to the roots). Deferring goes on; a change of structure that reads
    /// `subtree` (a re-added node, a restart's attempt) calls it first.
    mutating func flushRollUp() {
        guard let pending = pendingRollUp, !pending.isEmpty else { return }
        pendingRollUp = [:]
        // Touched node -> how many touched children have not yet passed their sums up.
        var waiting: [Int32: Int32] = [:]
        waiting.reserveCapacity(pending.count)
        for start in pending.keys where waiting[start] == nil {
            waiting[start] = 0
            var x = start
            while let p = liveParent(x) {
                if let w = waiting[p] {
                    waiting[p] = w + 1
                    break
                }
                waiting[p] = 1
                x = p
            }
        }
        var sums = pending
        var ready: [Int32] = waiting.compactMap { $0.value == 0 ? $0.key : nil }
        while let x = ready.popLast() {
            let sum = sums.removeValue(forKey: x) ?? SubtreeCounts()
            if contains(Int(x)) { nodes.update(Int(x)) { $0.subtree &+= sum } }
            guard let p = liveParent(x) else { continue }
            sums[p, default: SubtreeCounts()] &+= sum
            let w = waiting[p]! - 1
            waiting[p] = w
            if w == 0 { ready.append(p) }
        }
    }

    /// The parent of a present node, if present (nil for roots and absent nodes).
    private func liveParent(_ x: Int32) -> Int32? {
        let i = Int(x)
        guard contains(i) else { return nil }
        let p = nodes.read(i) { $0.parent }
        return p >= 0 && contains(Int(p)) ? p : nil
    }
}

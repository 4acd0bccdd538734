import TaskGraph

/// What a viewer that fell behind need not absorb: a progress event that a later progress
/// event of the same node, in the same batch, replaces. The dashboard draws the batch in one
/// frame, so the earlier fraction would never be seen; the final tree is the same (progress
/// only sets the fraction and info, which the later event sets again), and the recording
/// keeps the node's last progress of each batch. Snapshots, resyncs and the end are
/// barriers: nothing is folded across them.
package struct ProgressFold {
    /// Per program: ids with a progress event later in the batch (walked from its end).
    private var later: [Int: Set<Int>] = [:]
    /// Progress events dropped so far.
    package private(set) var dropped = 0

    package init() {}

    /// Starts a new batch.
    package mutating func reset() { later.removeAll(keepingCapacity: true) }

    /// Program `p`'s `item`, folded: call for a batch's items from its LAST to its first
    /// (after `reset`); items of different programs never touch each other.
    package mutating func fold(_ item: StreamItem, program p: Int) -> StreamItem {
        guard case .events(let events) = item else {
            barrier(program: p)
            return item
        }
        return fold(events, program: p).map { .events($0) } ?? item
    }

    /// Nothing of program `p` is folded across this point (its connection ended).
    package mutating func barrier(program p: Int) { later[p] = nil }

    /// The events without those a later progress replaces (nil: none to drop), noting the
    /// progress events that remain.
    private mutating func fold(_ events: [GraphEvent], program p: Int) -> [GraphEvent]? {
        var seen = later.removeValue(forKey: p) ?? [] // taken out, so inserting never copies it
        defer { later[p] = seen }
        var drop: [Int] = []
        for k in events.indices.reversed() {
            guard case .progress(let id, _) = events[k].change else { continue }
            if !seen.insert(id.rawValue).inserted { drop.append(k) }
        }
        guard !drop.isEmpty else { return nil }
        dropped += drop.count
        var kept: [GraphEvent] = []
        kept.reserveCapacity(events.count - drop.count)
        var next = drop.count - 1 // `drop` descends
        for k in events.indices {
            if next >= 0 && drop[next] == k {
                next -= 1
                continue
            }
            kept.append(events[k])
        }
        return kept
    }
}

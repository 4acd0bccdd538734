/// One running parent's finished children, oldest first, split by whether they failed (failed
/// ones are kept longer), and what retention dropped of them so far (`Retention`'s child
/// rule). Lives in its stripe's `retainedParents`, guarded by that stripe's lock.
final class ChildRetention {
    /// Finished children that did not fail (succeeded or cancelled), oldest first.
    var ok = IDQueue()
    /// Failed children, oldest first.
    var failed = IDQueue()
    /// What the dropped ones add up to; nil until the first is dropped.
    var tally: ChildTally?

    /// Takes the oldest finished children beyond the limits off the queues: failed ones beyond
    /// `maxFailed`, then any beyond `maxFinished`, those that did not fail first.
    func takeBeyond(maxFinished: Int, maxFailed: Int) -> [Int] {
        var out: [Int] = []
        while failed.count > maxFailed { out.append(failed.pop()) }
        while ok.count + failed.count > maxFinished { out.append(ok.count > 0 ? ok.pop() : failed.pop()) }
        return out
    }

    /// Forgets the queues (the parent settled: its children are no longer retention's).
    func settle() {
        ok = IDQueue()
        failed = IDQueue()
    }
}

/// Node ids, first in first out: an array read from `head`, compacted once more than half of
/// it (and over 256) was taken.
struct IDQueue {
    private var items: [Int] = []
    private var head = 0

    var count: Int { items.count - head }

    mutating func append(_ id: Int) { items.append(id) }

    /// The oldest id (the queue is not empty).
    mutating func pop() -> Int {
        let id = items[head]
        head += 1
        if head > 256 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return id
    }
}

/// Root names `Graph.droppedRoots` keeps apart; roots of further names are summed under
/// `ChildRetention.otherRoots`.
let maxDroppedRootNames = 1000

/// A finished root retention drops, as the summary of its name counts it.
struct DroppedRoot {
    let name: String
    let state: TaskState
    let failed: Bool
    let duration: Double?
}

extension ChildRetention {
    /// The name the dropped roots beyond `maxDroppedRootNames` names are summed under.
    static let otherRoots = "(other roots)"
}

/// Retention of children (`Retention.maxFinishedChildren`/`maxFailedChildren`) and the
/// summaries of what retention dropped. Runs only in a graph with a retention policy.
extension Graph {
    /// A node was added under the parent in `parentSlot` (`parentID`): scopes, spans and
    /// services are counted from their first child (their children's durations are kept
    /// from then on); other parents once they have more children than the policy keeps.
    func childAddedLocked(_ s: Stripe, parentSlot: Int, parentID: Int, policy: Retention) {
        s.assertLocked()
        guard s.contains(parentSlot), s.retainedParents[parentID] == nil else { return }
        let parent = s[parentSlot]
        guard parent.state == .executing || parent.state == .notExecuted else { return }
        let k = parent.kindIndex
        let longLived = k == KindIndex.scope || k == KindIndex.span || k == KindIndex.service
        guard longLived || parent.children.count > Swift.max(0, policy.maxFinishedChildren) else { return }
        let entry = ChildRetention()
        // Children that finished before: in subtask order, the nearest to finishing order known.
        for c in parent.children {
            guard let slot = s.slot(of: c.rawValue) else { continue }
            let r = s[slot]
            guard r.state.isSettled else { continue }
            if r.failed { entry.failed.append(c.rawValue) } else { entry.ok.append(c.rawValue) }
        }
        s.retainedParents[parentID] = entry
    }

    /// Node `id` (in `slot`, under `parent`, -1 for a root) moved to `state`: keeps the times
    /// its duration is made from (roots, and children of counted parents), and when a child
    /// of a counted running parent settles, drops the oldest finished children beyond the
    /// policy. Called with the policy set.
    func retentionTransitionLocked(
        _ s: Stripe, _ slot: Int, id: Int, parent: Int, state: TaskState, failed: Bool, policy: Retention
    ) {
        s.assertLocked()
        let counted = parent < 0 || (!s.retainedParents.isEmpty && s.retainedParents[parent] != nil)
        if counted, !keepsStartTimes {
            if state == .executing { s.setStart(slot, clock.now) } else if state.isSettled { s.setEnd(slot, clock.now) }
        }
        guard state.isSettled else { return }
        if !s.retainedParents.isEmpty, let own = s.retainedParents[id] {
            if own.tally == nil { s.retainedParents[id] = nil } else { own.settle() }
        }
        guard parent >= 0, counted, let entry = s.retainedParents[parent], let parentSlot = s.slot(of: parent),
            s[parentSlot].state == .executing
        else { return }
        if failed { entry.failed.append(id) } else { entry.ok.append(id) }
        let beyond = entry.takeBeyond(
            maxFinished: Swift.max(0, policy.maxFinishedChildren), maxFailed: Swift.max(0, policy.maxFailedChildren))
        guard !beyond.isEmpty else { return }
        dropChildrenLocked(s, beyond, of: entry, parent: parent, parentSlot: parentSlot)
    }

    /// Drops the finished `children` of the running `parent` (whole subtrees), adds them to
    /// the parent's tally and records the new summary. (Its own function: the loop inside
    /// `retentionTransitionLocked` crashed Swift 6.3's optimizer.)
    func dropChildrenLocked(_ s: Stripe, _ children: [Int], of entry: ChildRetention, parent: Int, parentSlot: Int) {
        s.assertLocked()
        var drop: [NodeID] = []
        var tally = entry.tally ?? ChildTally()
        for child in children {
            guard let c = s.slot(of: child) else { continue }
            let r = s[c]
            tally.add(state: r.state, failed: r.failed, duration: durationLocked(s, c))
            collectSubtree(s, child, into: &drop)
            s.modify(parentSlot) { $0.children.remove(NodeID(child)) }
        }
        guard !drop.isEmpty else { return }
        entry.tally = tally
        dropLocked(s, drop)
        emit(s, .summary(id: NodeID(parent), root: nil, summary: tally.summary))
    }

    /// How long the node in `slot` ran, when its start and end were kept.
    func durationLocked(_ s: Stripe, _ slot: Int) -> Double? {
        s.assertLocked()
        guard let start = s.start(slot), let end = s.end(slot) else { return nil }
        return Swift.max(0, end - start)
    }

    /// What the summary of its name needs of the root in `slot` (about to be dropped).
    func droppedRootLocked(_ s: Stripe, _ slot: Int) -> DroppedRoot {
        s.assertLocked()
        let r = s[slot]
        return DroppedRoot(name: r.name, state: r.state, failed: r.failed, duration: durationLocked(s, slot))
    }

    /// Adds `roots` (just dropped from stripe `s`) to the whole graph's summaries of their
    /// names and tells observers each changed one (`summary`, after the `dropped`).
    func tallyDroppedRootsLocked(_ s: Stripe, _ roots: [DroppedRoot]) {
        s.assertLocked()
        droppedRootTallies.withLock { tallies in
            var names: [String] = []
            for r in roots {
                var name = r.name
                if tallies[name] == nil && tallies.count >= maxDroppedRootNames { name = ChildRetention.otherRoots }
                tallies[name, default: ChildTally()].add(state: r.state, failed: r.failed, duration: r.duration)
                if !names.contains(name) { names.append(name) }
            }
            for name in names {
                if let tally = tallies[name] { emit(s, .summary(id: nil, root: name, summary: tally.summary)) }
            }
        }
    }

    /// Forgets the records of `drop` (whole subtrees) and tells observers (`dropped`).
    func dropLocked(_ s: Stripe, _ drop: [NodeID]) {
        s.assertLocked()
        for d in drop {
            if let slot = s.slot(of: d.rawValue) { s.drop(slot) }
            if !s.retainedParents.isEmpty { s.retainedParents[d.rawValue] = nil }
        }
        emit(s, .dropped(ids: drop))
    }

    /// What retention dropped of roots, by root name, over every stripe. All stripes locked
    /// (so it agrees with the records a snapshot copies).
    func droppedRootsLocked() -> [String: ChildTally] {
        assertAllStripesLocked()
        return droppedRootTallies.withLock { $0 }
    }

    /// The summaries of dropped children of the live nodes of every stripe, by node id.
    func droppedChildrenLocked() -> [Int: ChildSummary] {
        assertAllStripesLocked()
        var out: [Int: ChildSummary] = [:]
        for s in stripes {
            for (id, entry) in s.retainedParents {
                if let tally = entry.tally { out[id] = tally.summary }
            }
        }
        return out
    }

    /// The finished roots retention dropped, summarized per root name (`GraphNode.name`):
    /// counts by outcome and their durations' p50/p95/max. Empty for a graph without
    /// retention, or before it dropped any.
    public var droppedRoots: [String: ChildSummary] {
        withAllStripes { droppedRootsLocked() }.mapValues(\.summary)
    }
}

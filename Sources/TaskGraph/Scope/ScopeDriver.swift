import Synchronization

/// What a scope's node (or a `GraphTask.async` task, or a span, while it runs) keeps about its
/// children: the ones still running, to cancel them with it; how many were made and settled
/// and their weights, for the derived progress ("N/M"); and the Swift task that runs a scope's
/// body, to cancel it when the graph cancels the node. Guarded by the owner's stripe lock.
///
/// Unlike the composites' drivers it has no upward rule: a child cancelled from outside does
/// not cancel the owner (the Swift code learns it from what the child throws), and children
/// come and go while the owner runs (only the running ones are kept).
@usableFromInline
final class ScopeDriver: CompositeDriver, @unchecked Sendable { // guarded by the owner's stripe lock
    /// Whether the owner shows its children's progress while it reports none of its own
    /// (scopes do; a `GraphTask.async` task reports its own through its body).
    let derives: Bool
    /// The owner reported progress of its own: children's progress is no longer shown.
    @exclusivity(unchecked) var ownProgress = false
    /// The Swift task that runs a scope's body, while it runs: written by that task before it
    /// sets `running` in `gate`, read by a canceller only while it holds `cancelling` there,
    /// cleared by the task once it set `done` (see `ScopeDriver+Cancel.swift`).
    @exclusivity(unchecked) var swiftTask: UnsafeCurrentTask?
    /// How the Swift task that runs a scope's body and a cancel of the node meet (`Gate`).
    let gate = Atomic<UInt8>(0)

    @exclusivity(unchecked) private var live = LiveChildren()
    @exclusivity(unchecked) private var made = 0
    @exclusivity(unchecked) private var settled = 0
    @exclusivity(unchecked) private var totalWeight = 0.0
    @exclusivity(unchecked) private var doneWeight = 0.0
    @exclusivity(unchecked) private var liveWeighted = 0.0
    /// The derived progress last recorded: its fraction and the counts of its "settled/made"
    /// (compared as numbers: the info string is built only when it is recorded).
    @exclusivity(unchecked) private var reportedFraction = 0.0
    @exclusivity(unchecked) private var reportedSettled = 0
    @exclusivity(unchecked) private var reportedMade = 0
    /// The reported progress is not recorded yet: nobody observed the graph when it changed
    /// (the owner's `_fraction` is current, its info and the graph's record are not).
    @exclusivity(unchecked) private var pendingRecord = false
    /// Whether the owner is in its graph's `UnrecordedProgress` (owner's stripe lock).
    @exclusivity(unchecked) var listed = false
    /// Where in that list (guarded by the list's lock).
    @exclusivity(unchecked) var listIndex = -1

    /// Where a scope's body leaves its outcome for `withGraphTask` (`ScopeDriver+Outcome.swift`).
    @exclusivity(unchecked) @usableFromInline var outcomeWords: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// What a cancel of this very node (`Graph.cancel`) does instead of cancelling it: a
    /// `ServiceGroup`'s node shuts the group down gracefully. Set before the node exists.
    let cancelInstead: (@Sendable () -> Void)?

    @usableFromInline init(derives: Bool) {
        self.derives = derives
        cancelInstead = nil
        super.init(children: [])
    }

    init(derives: Bool, cancelInstead: (@Sendable () -> Void)?) {
        self.derives = derives
        self.cancelInstead = cancelInstead
        super.init(children: [])
    }

    /// The index the next child gets (lock held).
    final func reserveLocked() -> Int {
        assertSomeLockHeld()
        defer { made += 1 }
        return made
    }

    /// Counts `child`, made (or adopted) as child number `index` (lock held); returns the
    /// progress to pass on once unlocked, if it changed ("N/M" grew).
    final func addLocked(_ child: AnyGraphTask, index: Int, owner: AnyGraphTask) -> ProgressReport? {
        owner.assertStripeLocked()
        let w = child._weight
        live.insert(index, LiveChildren.Entry(task: child, weight: w, counted: 0))
        totalWeight += w
        return reportLocked(owner: owner)
    }

    /// A scope's driver (`derives`) cancels the Swift task that runs its body.
    override var noticesCancel: Bool { derives }

    /// A body still running is watched: the graph warns when it has not returned 1 s later.
    override func ownerCancelled(owner: AnyGraphTask) {
        if cancelSwiftTask() { owner.graph.watchCancelledBody(owner.rawID, body: self) }
    }

    override func childLocked(rawID: Int) -> AnyGraphTask? {
        assertSomeLockHeld()
        var found: AnyGraphTask?
        live.forEach { _, e in if found == nil && e.task.rawID == rawID { found = e.task } }
        return found
    }

    override func executingChildrenLocked() -> [AnyGraphTask] {
        assertSomeLockHeld()
        var tasks: [AnyGraphTask] = []
        live.forEach { _, e in if e.task._state == .executing { tasks.append(e.task) } }
        return tasks
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        let report = owner.withStripe { _ in settleLocked(owner: owner, index) }
        report?.deliver(owner)
    }

    /// A child was cancelled by the graph (not by its own Swift task): what a span's end
    /// looks at (`SpanNodes.end`). Owner's stripe lock.
    @exclusivity(unchecked) var childCancelledByGraph = false

    /// No upward rule: the owner only counts the child as done (and notes a graph's cancel).
    override func childCancelled(owner: AnyGraphTask, index: Int) {
        owner.withStripe { _ in
            // The family shares the owner's stripe: the child's source is read under its lock.
            if let e = live[index], e.task._cancelSource != CancelSource.task { childCancelledByGraph = true }
        }
        childSettled(owner: owner, index: index)
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let report: ProgressReport? = owner.withStripe { _ in
            guard var e = live[index] else { return nil }
            let f = e.task._progress.fraction
            guard f != e.counted else { return nil }
            liveWeighted += e.weight * (f - e.counted)
            e.counted = f
            live.update(index, e)
            return reportLocked(owner: owner)
        }
        report?.deliver(owner)
    }

    override func weightsChanged(owner: AnyGraphTask) {
        let report: ProgressReport? = owner.withStripe { _ in
            var changed: [(Int, LiveChildren.Entry)] = []
            live.forEach { i, e in if e.task._weight != e.weight { changed.append((i, e)) } }
            for (i, var e) in changed {
                let w = e.task._weight
                totalWeight += w - e.weight
                liveWeighted += (w - e.weight) * e.counted
                e.weight = w
                live.update(i, e)
            }
            return reportLocked(owner: owner)
        }
        report?.deliver(owner)
    }

    final func settleLocked(owner: AnyGraphTask, _ index: Int) -> ProgressReport? {
        owner.assertStripeLocked()
        guard let e = live.remove(index) else { return nil }
        settled += 1
        liveWeighted -= e.weight * e.counted
        doneWeight += e.weight
        return reportLocked(owner: owner)
    }

    /// The derived progress, recorded if it changed (lock held): the weighted mean of the
    /// fractions of the children made so far (a settled child counts 1; equal shares when no
    /// child weighs anything), with "settled/made" as info. It goes down when a child is
    /// added: it never shows more than the work done.
    private func reportLocked(owner: AnyGraphTask) -> ProgressReport? {
        owner.assertStripeLocked()
        guard derives, !ownProgress, owner._state == .executing, made > 0 else { return nil }
        let fraction =
            totalWeight > 0
            ? (doneWeight + liveWeighted) / totalWeight
            : Double(settled) / Double(made)
        let f = TaskProgress.clamp(fraction)
        guard f != reportedFraction || settled != reportedSettled || made != reportedMade else { return nil }
        let changed = f != reportedFraction
        reportedFraction = f
        reportedSettled = settled
        reportedMade = made
        let graph = owner.graph
        guard !graph.observed, owner.handlers.progressCount == 0 else {
            pendingRecord = false
            return recordLocked(owner: owner, TaskProgress(f, info: ScopeDriver.ratio(settled, made)))
        }
        // Nobody sees it now: counted as the event it is, recorded when somebody looks. The
        // parent needs only the fraction, which is kept current.
        graph.stripeRefs[owner.stripeIndex]._withUnsafeGuaranteedRef { $0.sequence &+= 1 }
        owner._fraction = f
        pendingRecord = true
        if !listed {
            listed = true
            graph.unrecordedProgress.add(owner, self)
        }
        guard changed, let parent = owner.executingParentLocked() else { return nil }
        return ProgressReport(progress: TaskProgress(f), parent: parent, index: owner._index, hasHandlers: false)
    }

    override func recordPendingLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
        guard pendingRecord else { return }
        pendingRecord = false
        let p = TaskProgress(owner._fraction, info: ScopeDriver.ratio(reportedSettled, reportedMade))
        owner._progress = p
        owner.graph.storeProgressLocked(owner.lockedStripe, owner.slot, p)
    }

    @usableFromInline override func ownerSettlingLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
        recordPendingLocked(owner: owner)
        if listed {
            listed = false
            owner.graph.unrecordedProgress.remove(self)
        }
    }

    /// "a/b" for the derived progress's info (two non-negative counts), written in place into
    /// the string's own storage: a string this short is stored inline (no allocation).
    static func ratio(_ a: Int, _ b: Int) -> String {
        let da = digitCount(a)
        let n = da + 1 + digitCount(b)
        return String(unsafeUninitializedCapacity: n) { buf in
            write(a, into: buf, endingAt: da)
            buf[da] = UInt8(ascii: "/")
            write(b, into: buf, endingAt: n)
            return n
        }
    }

    private static func digitCount(_ v: Int) -> Int {
        var (v, n) = (v, 1)
        while v >= 10 {
            v /= 10
            n += 1
        }
        return n
    }

    /// Writes the decimal digits of `v` (>= 0) backwards from `end` (exclusive).
    private static func write(_ v: Int, into buf: UnsafeMutableBufferPointer<UInt8>, endingAt end: Int) {
        var (v, i) = (v, end)
        repeat {
            i -= 1
            buf[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
        } while v > 0
    }
}

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
    /// One running child: its task, its weight and the fraction counted for it so far.
    private struct Entry {
        let task: AnyGraphTask
        var weight: Double
        var counted: Double
    }

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

    @exclusivity(unchecked) private var live: [Int: Entry] = [:]
    @exclusivity(unchecked) private var made = 0
    @exclusivity(unchecked) private var settled = 0
    @exclusivity(unchecked) private var totalWeight = 0.0
    @exclusivity(unchecked) private var doneWeight = 0.0
    @exclusivity(unchecked) private var liveWeighted = 0.0
    @exclusivity(unchecked) private var reported = TaskProgress.zero

    init(derives: Bool) {
        self.derives = derives
        super.init(children: [])
    }

    /// The index the next child gets (lock held).
    func reserveLocked() -> Int {
        defer { made += 1 }
        return made
    }

    /// Counts `child`, made (or adopted) as child number `index` (lock held); returns the
    /// progress to pass on once unlocked, if it changed ("N/M" grew).
    func addLocked(_ child: AnyGraphTask, index: Int, owner: AnyGraphTask) -> ProgressReport? {
        let w = child._weight
        live[index] = Entry(task: child, weight: w, counted: 0)
        totalWeight += w
        return reportLocked(owner: owner)
    }

    /// A scope's driver (`derives`) cancels the Swift task that runs its body.
    override var noticesCancel: Bool { derives }

    override func ownerCancelled() { cancelSwiftTask() }

    override func childLocked(rawID: Int) -> AnyGraphTask? {
        live.values.first { $0.task.rawID == rawID }?.task
    }

    override func executingChildrenLocked() -> [AnyGraphTask] {
        live.values.compactMap { $0.task._state == .executing ? $0.task : nil }
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        let report = owner.withStripe { _ in settleLocked(owner: owner, index) }
        report?.deliver(owner)
    }

    /// No upward rule: the owner only counts the child as done.
    override func childCancelled(owner: AnyGraphTask, index: Int) {
        childSettled(owner: owner, index: index)
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let report: ProgressReport? = owner.withStripe { _ in
            guard var e = live[index] else { return nil }
            let f = e.task._progress.fraction
            guard f > e.counted else { return nil }
            liveWeighted += e.weight * (f - e.counted)
            e.counted = f
            live[index] = e
            return reportLocked(owner: owner)
        }
        report?.deliver(owner)
    }

    override func weightsChanged(owner: AnyGraphTask) {
        let report: ProgressReport? = owner.withStripe { _ in
            for (i, var e) in live where e.task._weight != e.weight {
                let w = e.task._weight
                totalWeight += w - e.weight
                liveWeighted += (w - e.weight) * e.counted
                e.weight = w
                live[i] = e
            }
            return reportLocked(owner: owner)
        }
        report?.deliver(owner)
    }

    func settleLocked(owner: AnyGraphTask, _ index: Int) -> ProgressReport? {
        guard let e = live.removeValue(forKey: index) else { return nil }
        settled += 1
        liveWeighted -= e.weight * e.counted
        doneWeight += e.weight
        return reportLocked(owner: owner)
    }

    /// The derived progress, recorded if it changed (lock held): the weighted fraction over
    /// the children made so far (equal shares when no child weighs anything), never below
    /// what was shown before, with "settled/made" as info.
    private func reportLocked(owner: AnyGraphTask) -> ProgressReport? {
        guard derives, !ownProgress, owner._state == .executing, made > 0 else { return nil }
        let fraction =
            totalWeight > 0
            ? (doneWeight + liveWeighted) / totalWeight
            : Double(settled) / Double(made)
        let p = TaskProgress(max(fraction, reported.fraction), info: ScopeDriver.ratio(settled, made))
        guard p != reported else { return nil }
        reported = p
        return recordLocked(owner: owner, p)
    }

    /// "a/b" for the derived progress's info, built in place: a string this short is stored
    /// inline (no allocation), where an interpolation reserved heap storage for it.
    static func ratio(_ a: Int, _ b: Int) -> String {
        // Two non-negative counts of at most 19 digits each, and the slash: 39 bytes at most.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buf in
            var n = 0
            func put(_ v: Int) {
                var v = v
                let start = n
                repeat {
                    buf[n] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                    n += 1
                } while v > 0
                var (i, j) = (start, n - 1)
                while i < j {
                    buf.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            put(a)
            buf[n] = UInt8(ascii: "/")
            n += 1
            put(b)
            return String(decoding: UnsafeBufferPointer(rebasing: buf[..<n]), as: UTF8.self)
        }
    }
}

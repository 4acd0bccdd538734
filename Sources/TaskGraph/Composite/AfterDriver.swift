/// Drives `after(_:)`: subtask 0 is the receiver, run only once every prerequisite has
/// succeeded. A prerequisite no composite has adopted when the owner starts is adopted then
/// (subtask 1, 2, ...) and started; one adopted elsewhere is only waited for (it runs where
/// it is, in its adopter's order, once however many tasks need it). While waiting the
/// owner reports info `waiting for A, B`; when a prerequisite fails, is cancelled or can
/// never run (never executed, its adopter settled), the owner reports `needs A, which
/// failed` and is cancelled with source `needs`, so the receiver is never executed.
///
/// The waiting uses handlers on the prerequisites (and on the nearest executing ancestor of
/// a prerequisite not executed yet); all of it is guarded by every stripe's lock, since
/// prerequisites live anywhere in the graph. Only `after` tasks come here.
///
/// Linear in the prerequisites: the start looks at each once, then each handler looks at
/// its own prerequisite only, a counter says when all are done, and the pending ones form a
/// list in order, so the info names the first few without a scan (a task needing 20,000
/// others: each settle was a scan of all of them, 60 s in all).
final class AfterDriver: CompositeDriver, @unchecked Sendable {
    let prerequisites: [AnyGraphTask]
    /// How the info texts name each prerequisite.
    let labels: [String]
    /// Prerequisites whose failure counts as done (taskview's `allowFailure`), by index.
    let tolerated: Set<Int>
    /// Settles the owner from the completed receiver.
    let finish: (AnyGraphTask, AnyGraphTask) -> Void

    private enum Phase { case waiting, running, over }

    /// At most this many prerequisites are named in the info (`waiting for A, B and 3 more`).
    static let namedInInfo = 10

    // Guarded by every stripe's lock (`graph.lock`); `phase` is also read under the owner's.
    @exclusivity(unchecked) private var phase = Phase.waiting
    /// Per prerequisite: a handler is on it.
    @exclusivity(unchecked) private var watching: [Bool]
    /// Per prerequisite: the ancestor watched for it (while it is not executed).
    @exclusivity(unchecked) private var watchedAncestor: [ObjectIdentifier?]
    /// Per prerequisite: it succeeded (or ended, when tolerated).
    @exclusivity(unchecked) private var done: [Bool]
    /// How many are not done.
    @exclusivity(unchecked) private var remaining: Int
    /// The prerequisites not done, in order: a doubly linked list over indexes (-1: none).
    @exclusivity(unchecked) private var nextPending: [Int32]
    @exclusivity(unchecked) private var previousPending: [Int32]
    @exclusivity(unchecked) private var firstPending: Int32
    /// Per subtask index (1...): the prerequisite it is (subtask 0 is the receiver). Written
    /// in `start` only, before those subtasks run.
    @exclusivity(unchecked) private var prerequisiteOfChild: [Int] = [-1]
    /// The info last reported.
    @exclusivity(unchecked) private var info: String?

    init(
        receiver: AnyGraphTask, prerequisites: [AnyGraphTask], labels: [String], tolerated: Set<Int> = [],
        finish: @escaping (AnyGraphTask, AnyGraphTask) -> Void
    ) {
        precondition(
            prerequisites.allSatisfy { $0.graph === receiver.graph },
            "after: every prerequisite must belong to the graph of '\(receiver.name)'")
        self.prerequisites = prerequisites
        self.labels = labels
        self.tolerated = tolerated
        self.finish = finish
        let n = prerequisites.count
        watching = Array(repeating: false, count: n)
        watchedAncestor = Array(repeating: nil, count: n)
        done = Array(repeating: false, count: n)
        remaining = n
        nextPending = (0..<n).map { Int32($0 + 1 < n ? $0 + 1 : -1) }
        previousPending = (0..<n).map { Int32($0 - 1) }
        firstPending = n > 0 ? 0 : -1
        super.init(children: [receiver])
    }

    override func start(owner: AnyGraphTask) {
        let graph = owner.graph
        let adopted: [AnyGraphTask] = graph.lock.withLock {
            guard owner._state == .executing else { return [] }
            if let why = Self.cycleLocked(prerequisites, owner: owner) { preconditionFailure(why) }
            var mine: [AnyGraphTask] = []
            for (i, p) in prerequisites.enumerated() where !p._adopted {
                if p.stripeIndex != owner.stripeIndex {
                    graph.moveLocked(p, from: graph.stripes[p.stripeIndex], to: graph.stripes[owner.stripeIndex])
                }
                p.adoptLocked(by: owner, index: children.count)
                children.append(p)
                prerequisiteOfChild.append(i)
                mine.append(p)
            }
            return mine
        }
        for p in adopted where p._state == .notExecuted { begin(p) }
        check(owner, only: nil)
    }

    /// Why waiting for one of `prerequisites` could never end: it is the owner or one of its
    /// ancestors (which wait for the owner). Every stripe locked.
    private static func cycleLocked(_ prerequisites: [AnyGraphTask], owner: AnyGraphTask) -> String? {
        owner.graph.assertAllStripesLocked()
        var line: [ObjectIdentifier: AnyGraphTask] = [:]
        var a: AnyGraphTask? = owner
        while let t = a {
            line[ObjectIdentifier(t)] = t
            a = t._parent
        }
        for p in prerequisites where line[ObjectIdentifier(p)] != nil {
            return "GraphTask '\(owner.name)' #\(owner.rawID) runs after '\(p.name)' #\(p.rawID), "
                + "which waits for it: it could never start"
        }
        return nil
    }

    /// What the owner does next, decided under the lock.
    private enum Next {
        case none
        case info(String)
        case start(AnyGraphTask, clear: Bool)
        case skip(String)
    }

    /// Looks at prerequisite `only` (nil: every one, at the start) and moves on: waits
    /// (watching those still to come), starts the receiver when all succeeded, or skips it
    /// when one cannot succeed.
    func check(_ owner: AnyGraphTask, only: Int?) {
        let graph = owner.graph
        var watch: [(AnyGraphTask, Int)] = []
        let next: Next = graph.lock.withLock {
            guard phase == .waiting, owner._state == .executing else { return .none }
            if let i = only {
                if let skip = examineLocked(i, owner: owner, watch: &watch) { return skip }
            } else {
                for i in prerequisites.indices {
                    if let skip = examineLocked(i, owner: owner, watch: &watch) { return skip }
                }
            }
            for (t, i) in watch { t.handlers.append(Self.handler(owner, i)) }
            if remaining == 0 {
                phase = .running
                return .start(children[0], clear: info != nil)
            }
            let text = waitingTextLocked()
            guard text != info else { return .none }
            info = text
            return .info(text)
        }
        switch next {
        case .none:
            break
        case .info(let text):
            owner.report(TaskProgress(0, info: text))
        case .start(let receiver, let clear):
            if clear { owner.report(.zero) }
            Trampoline.enter { begin(receiver) }
        case .skip(let text):
            owner.report(TaskProgress(0, info: text))
            owner.cancel(source: CancelSource.needs)
        }
    }

    /// Looks at prerequisite `i`: counts it done once it succeeded, returns the skip when it
    /// cannot succeed, else notes in `watch` what to put a handler on. Every stripe locked.
    private func examineLocked(_ i: Int, owner: AnyGraphTask, watch: inout [(AnyGraphTask, Int)]) -> Next? {
        owner.graph.assertAllStripesLocked()
        guard !done[i] else { return nil }
        let p = prerequisites[i]
        switch p._state {
        case .completed:
            if p._failed && !tolerated.contains(i) { return skipLocked(i, "failed") }
            markDoneLocked(i)
            return nil
        case .cancelled:
            let skipped = p.kindIndex == KindIndex.after && p._cancelSource == CancelSource.needs
            return skipLocked(i, skipped ? "was skipped" : "was cancelled")
        case .executing:
            break
        case .notExecuted:
            if p._parent !== owner {
                // It never runs once the nearest ancestor that ran has settled.
                var a = p._parent
                while let t = a, t._state == .notExecuted { a = t._parent }
                if let a {
                    if a._state.isSettled { return skipLocked(i, "was skipped") }
                    if watchedAncestor[i] != ObjectIdentifier(a) {
                        watchedAncestor[i] = ObjectIdentifier(a)
                        watch.append((a, i))
                    }
                }
            }
        }
        if !watching[i] {
            watching[i] = true
            watch.append((p, i))
        }
        return nil
    }

    /// Prerequisite `i` succeeded: one fewer to wait for, and out of the pending list.
    private func markDoneLocked(_ i: Int) {
        assertSomeLockHeld()
        done[i] = true
        remaining -= 1
        let before = previousPending[i]
        let after = nextPending[i]
        if before >= 0 { nextPending[Int(before)] = after } else { firstPending = after }
        if after >= 0 { previousPending[Int(after)] = before }
    }

    /// `waiting for A, B` (the first `namedInInfo` pending ones, then `and N more`).
    private func waitingTextLocked() -> String {
        assertSomeLockHeld()
        var names: [String] = []
        var k = firstPending
        while k >= 0 && names.count < Self.namedInInfo {
            names.append(labels[Int(k)])
            k = nextPending[Int(k)]
        }
        let more = remaining - names.count
        return "waiting for " + names.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
    }

    private func skipLocked(_ i: Int, _ why: String) -> Next {
        assertSomeLockHeld()
        phase = .over
        return .skip("needs \(labels[i]), which \(why)")
    }

    /// A settled or cancelled prerequisite `i` (or its watched ancestor) makes the owner look
    /// at it again.
    private static func handler(_ owner: AnyGraphTask, _ i: Int) -> HandlerEntry {
        HandlerEntry(isProgress: false) { [weak owner] event, _ in
            guard event != .progress, let owner else { return }
            (owner.lockedDriver() as? AfterDriver)?.check(owner, only: i)
        }
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        guard index == 0 else { return check(owner, only: prerequisiteOfChild[index]) }
        let receiver: AnyGraphTask? = owner.withStripe { _ in
            guard phase == .running, owner._state == .executing else { return nil }
            phase = .over
            return children[0]
        }
        if let receiver { finish(owner, receiver) }
    }

    override func childCancelled(owner: AnyGraphTask, index: Int) {
        if index == 0 { cancelOwner(owner) } else { check(owner, only: prerequisiteOfChild[index]) }
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        guard index == 0 else { return }
        let report: ProgressReport? = owner.withStripe { _ in
            let p = children[0]._progress
            guard phase == .running, owner._state == .executing, p != owner._progress else { return nil }
            return recordLocked(owner: owner, p)
        }
        report?.deliver(owner)
    }
}

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
final class AfterDriver: CompositeDriver, @unchecked Sendable {
    let prerequisites: [AnyGraphTask]
    /// How the info texts name each prerequisite.
    let labels: [String]
    /// Prerequisites whose failure counts as done (taskview's `allowFailure`), by index.
    let tolerated: Set<Int>
    /// Settles the owner from the completed receiver.
    let finish: (AnyGraphTask, AnyGraphTask) -> Void

    private enum Phase { case waiting, running, over }

    // Guarded by every stripe's lock (`graph.lock`); `phase` is also read under the owner's.
    @exclusivity(unchecked) private var phase = Phase.waiting
    /// Per prerequisite: a handler is on it.
    @exclusivity(unchecked) private var watching: [Bool]
    /// Per prerequisite: the ancestor watched for it (while it is not executed).
    @exclusivity(unchecked) private var watchedAncestor: [ObjectIdentifier?]
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
        watching = Array(repeating: false, count: prerequisites.count)
        watchedAncestor = Array(repeating: nil, count: prerequisites.count)
        super.init(children: [receiver])
    }

    override func start(owner: AnyGraphTask) {
        let graph = owner.graph
        let adopted: [AnyGraphTask] = graph.lock.withLock {
            guard owner._state == .executing else { return [] }
            var mine: [AnyGraphTask] = []
            for p in prerequisites {
                if let why = Self.cycleLocked(p, owner: owner) { preconditionFailure(why) }
                guard !p._adopted, !mine.contains(where: { $0 === p }) else { continue }
                if p.stripeIndex != owner.stripeIndex {
                    graph.moveLocked(p, from: graph.stripes[p.stripeIndex], to: graph.stripes[owner.stripeIndex])
                }
                p.adoptLocked(by: owner, index: children.count)
                children.append(p)
                mine.append(p)
            }
            return mine
        }
        for p in adopted where p._state == .notExecuted { begin(p) }
        check(owner)
    }

    /// Why waiting for `p` could never end: `p` is the owner or one of its ancestors (which
    /// wait for the owner). Every stripe locked.
    private static func cycleLocked(_ p: AnyGraphTask, owner: AnyGraphTask) -> String? {
        owner.graph.assertAllStripesLocked()
        var a: AnyGraphTask? = owner
        while let t = a {
            if t === p {
                return "GraphTask '\(owner.name)' #\(owner.rawID) runs after '\(p.name)' #\(p.rawID), "
                    + "which waits for it: it could never start"
            }
            a = t._parent
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

    /// Looks at every prerequisite and moves on: waits (watching those still to come),
    /// starts the receiver when all succeeded, or skips it when one cannot succeed.
    func check(_ owner: AnyGraphTask) {
        let graph = owner.graph
        var watch: [(AnyGraphTask, Int)] = []
        let next: Next = graph.lock.withLock {
            guard phase == .waiting, owner._state == .executing else { return .none }
            var pending: [String] = []
            for (i, p) in prerequisites.enumerated() {
                switch p._state {
                case .completed:
                    if p._failed && !tolerated.contains(i) { return skipLocked(i, "failed") }
                    continue
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
                pending.append(labels[i])
            }
            for (t, _) in watch { t.handlers.append(Self.handler(owner)) }
            if pending.isEmpty {
                phase = .running
                return .start(children[0], clear: info != nil)
            }
            let text = "waiting for " + pending.joined(separator: ", ")
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

    private func skipLocked(_ i: Int, _ why: String) -> Next {
        assertSomeLockHeld()
        phase = .over
        return .skip("needs \(labels[i]), which \(why)")
    }

    /// A settled or cancelled prerequisite (or watched ancestor) makes the owner look again.
    private static func handler(_ owner: AnyGraphTask) -> HandlerEntry {
        HandlerEntry(isProgress: false) { [weak owner] event, _ in
            guard event != .progress, let owner else { return }
            (owner.lockedDriver() as? AfterDriver)?.check(owner)
        }
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        guard index == 0 else { return check(owner) }
        let receiver: AnyGraphTask? = owner.withStripe { _ in
            guard phase == .running, owner._state == .executing else { return nil }
            phase = .over
            return children[0]
        }
        if let receiver { finish(owner, receiver) }
    }

    override func childCancelled(owner: AnyGraphTask, index: Int) {
        if index == 0 { cancelOwner(owner) } else { check(owner) }
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

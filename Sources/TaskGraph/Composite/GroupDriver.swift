/// Drives `sequential`, `concurrent`, `allSettled`, `race` and `and`: a list of subtasks
/// reached in subtask order. The typed parts (building the result, passing on a failure)
/// come in as closures from the constructors.
@usableFromInline
final class GroupDriver: CompositeDriver, @unchecked Sendable {
    @usableFromInline
    enum Mode { case sequential, concurrent, allSettled, race }

    let mode: Mode
    /// At most this many subtasks reached and not yet consumed at once (`maxConcurrent`);
    /// the rest wait, not executed, and start in subtask order as slots free.
    let limit: Int
    /// Settles the owner with the results of all children (all consumed).
    let finish: (AnyGraphTask, [AnyGraphTask]) -> Void
    /// Settles the owner with this child's outcome (a failure, or the race winner).
    let pass: (AnyGraphTask, AnyGraphTask) -> Void
    /// Failures the group goes on past (`GroupTolerance`).
    let tolerance: GroupTolerance

    // Guarded by the owner's stripe lock.
    @exclusivity(unchecked) private var consumed: [Bool]
    @exclusivity(unchecked) private var remaining: Int
    @exclusivity(unchecked) private var next = 0
    /// Concurrent modes: how many subtasks have been reached (started or found settled).
    @exclusivity(unchecked) private var reached = 0
    @exclusivity(unchecked) private var aggregate: WeightedAggregate
    @exclusivity(unchecked) private var over = false
    /// Keep-going groups: the first child that failed, and whether one was cancelled.
    @exclusivity(unchecked) private var firstFailed: Int?
    @exclusivity(unchecked) private var someCancelled = false

    @usableFromInline
    init(
        mode: Mode, children: [AnyGraphTask], limit: Int? = nil, tolerance: GroupTolerance = GroupTolerance(),
        finish: @escaping (AnyGraphTask, [AnyGraphTask]) -> Void,
        pass: @escaping (AnyGraphTask, AnyGraphTask) -> Void
    ) {
        precondition((limit ?? 1) >= 1, "maxConcurrent must be at least 1, got \(limit ?? 0)")
        self.mode = mode
        self.limit = limit ?? Int.max
        self.finish = finish
        self.pass = pass
        self.tolerance = tolerance
        consumed = Array(repeating: false, count: children.count)
        remaining = children.count
        aggregate = WeightedAggregate(weights: Array(repeating: 1, count: children.count))
        super.init(children: children)
    }

    override func adoptChildrenLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
        super.adoptChildrenLocked(owner: owner)
        aggregate.setWeights(children.map { $0._weight })
    }

    /// What the driver decided under the lock, carried out after unlocking.
    private enum Step {
        case none
        case start(AnyGraphTask)
        case finishAll
        case pass(AnyGraphTask, cancelOthers: [AnyGraphTask], source: String)
        case cancelOwner
        case progress(ProgressReport)
    }

    @usableFromInline override func start(owner: AnyGraphTask) {
        switch mode {
        case .sequential:
            advance(owner: owner)
        case .concurrent, .allSettled, .race:
            fill(owner: owner)
            let done: Bool = owner.withStripe { _ in
                guard !over, owner._state == .executing, remaining == 0 else { return false }
                over = true
                return true
            }
            if done { finish(owner, children) }
        }
    }

    /// Concurrent modes: reaches the next subtasks in order while fewer than `limit` are in
    /// flight (reached and not consumed), starting those not executed yet.
    private func fill(owner: AnyGraphTask) {
        while true {
            var startChild: AnyGraphTask?
            let step: Step? = owner.withStripe { _ in
                guard !over, owner._state == .executing, reached < children.count,
                    reached - (children.count - remaining) < limit
                else { return nil }
                let i = reached
                reached += 1
                switch lookLocked(i) {
                case .start(let c):
                    startChild = c
                    return Step.none
                case .wait: return Step.none // a pending subtask: in flight already
                case .completed: return consumeLocked(owner: owner, i)
                case .cancelled: return cancelledLocked(owner: owner, i)
                }
            }
            guard let step else { return }
            if let startChild { begin(startChild) } else { perform(step, owner: owner) }
        }
    }

    /// Sequential: consume settled children in order and start the next one.
    private func advance(owner: AnyGraphTask) {
        while true {
            var startChild: AnyGraphTask?
            var step = Step.none
            var again = false
            owner.withStripe { _ in
                guard !over, owner._state == .executing else { return }
                guard next < children.count else {
                    over = true
                    step = endLocked(owner: owner)
                    return
                }
                switch lookLocked(next) {
                case .start(let c):
                    startChild = c
                case .wait:
                    break
                case .completed:
                    step = consumeLocked(owner: owner, next)
                    if !over {
                        next += 1
                        again = true
                    }
                case .cancelled:
                    step = cancelledLocked(owner: owner, next)
                    if tolerance.keepGoing && !over {
                        next += 1
                        again = true
                    }
                }
            }
            if let startChild {
                begin(startChild)
                return
            }
            perform(step, owner: owner)
            if !again { return }
        }
    }

    /// Counts a completed child (lock held).
    private func consumeLocked(owner: AnyGraphTask, _ i: Int) -> Step {
        owner.assertStripeLocked()
        guard !consumed[i], !over else { return .none }
        let c = children[i]
        consumed[i] = true
        remaining -= 1
        let stopping = c._failed && mode != .allSettled && !tolerance.tolerated.contains(i)
        if stopping && tolerance.keepGoing {
            if firstFailed == nil { firstFailed = i }
        } else if stopping || mode == .race {
            over = true
            let others = children.indices.compactMap { j -> AnyGraphTask? in
                j != i && children[j]._state == .executing ? children[j] : nil
            }
            return .pass(
                c, cancelOthers: others,
                source: mode == .race ? CancelSource.parent : CancelSource.failFast)
        }
        aggregate.set(i, 1)
        if mode != .sequential && remaining == 0 {
            over = true
            return endLocked(owner: owner)
        }
        return reportLocked(owner: owner)
    }

    /// A child found cancelled, or cancelled from outside (lock held). `allSettled` and a
    /// keep-going group go on with the others.
    private func cancelledLocked(owner: AnyGraphTask, _ i: Int) -> Step {
        owner.assertStripeLocked()
        guard mode == .allSettled || tolerance.keepGoing else { return over ? .none : .cancelOwner }
        guard !consumed[i], !over, owner._state == .executing else { return .none }
        consumed[i] = true
        remaining -= 1
        someCancelled = true
        aggregate.set(i, 1)
        if mode != .sequential && remaining == 0 {
            over = true
            return endLocked(owner: owner)
        }
        return reportLocked(owner: owner)
    }

    /// Every child consumed (lock held): a keep-going group that went on past a failure fails
    /// with the first one (past a cancelled child, it is cancelled); otherwise it finishes.
    private func endLocked(owner: AnyGraphTask) -> Step {
        owner.assertStripeLocked()
        guard mode != .allSettled else { return .finishAll }
        if let f = firstFailed { return .pass(children[f], cancelOthers: [], source: CancelSource.failFast) }
        return someCancelled ? .cancelOwner : .finishAll
    }

    private func reportLocked(owner: AnyGraphTask) -> Step {
        owner.assertStripeLocked()
        guard let v = aggregate.takeReport() else { return .none }
        return .progress(recordLocked(owner: owner, v))
    }

    private func perform(_ step: Step, owner: AnyGraphTask) {
        switch step {
        case .none, .start:
            break
        case .finishAll:
            finish(owner, children)
        case .pass(let child, let others, let source):
            let code = CancelSourceCode.code(for: source)
            for o in others { o.cancel(source: CancelSourceCode.source(for: code), byParent: true) }
            pass(owner, child)
        case .cancelOwner:
            cancelOwner(owner)
        case .progress(let report):
            report.deliver(owner)
        }
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        if mode == .sequential {
            let isCurrent: Bool = owner.withStripe { _ in index == next }
            if isCurrent { advance(owner: owner) }
            return
        }
        let step: Step = owner.withStripe { _ in
            guard owner._state == .executing else { return .none }
            return consumeLocked(owner: owner, index)
        }
        perform(step, owner: owner)
        if limit != Int.max { fill(owner: owner) } // a slot is free
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let step: Step = owner.withStripe { _ in
            guard !over, owner._state == .executing, !consumed[index] else { return .none }
            aggregate.set(index, children[index]._progress.fraction)
            return reportLocked(owner: owner)
        }
        perform(step, owner: owner)
    }

    override func childCancelled(owner: AnyGraphTask, index: Int) {
        if mode == .sequential && tolerance.keepGoing {
            let isCurrent: Bool = owner.withStripe { _ in index == next }
            if isCurrent { advance(owner: owner) }
            return
        }
        let step: Step = owner.withStripe { _ in
            if mode == .allSettled || tolerance.keepGoing { return cancelledLocked(owner: owner, index) }
            return owner._state.isSettled ? .none : .cancelOwner
        }
        perform(step, owner: owner)
        if limit != Int.max && (mode == .allSettled || tolerance.keepGoing) { fill(owner: owner) }
    }

    override func weightsChanged(owner: AnyGraphTask) {
        let step: Step = owner.withStripe { _ in
            guard !over, owner._state == .executing else { return .none }
            aggregate.setWeights(children.map { $0._weight })
            return reportLocked(owner: owner)
        }
        perform(step, owner: owner)
    }
}

/// Failures a `sequential` or `concurrent` group goes on past (taskview's `-k` and
/// `allowFailure`): `tolerated` children's failures count as successes; with `keepGoing`
/// the group never stops early (no fail-fast cancel, a `sequential` runs every child) and
/// ends failed with its first failure, else cancelled when a child was cancelled.
@usableFromInline
struct GroupTolerance: Sendable {
    @usableFromInline let keepGoing: Bool
    @usableFromInline let tolerated: Set<Int>

    @usableFromInline
    init(keepGoing: Bool = false, tolerated: Set<Int> = []) {
        self.keepGoing = keepGoing
        self.tolerated = tolerated
    }
}

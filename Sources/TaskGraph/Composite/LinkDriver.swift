/// Drives `then`, `recover` and `chain`: a first link, then maybe a second one (given up
/// front, or made by a closure from the first link's outcome). Both links count in the
/// owner's progress like a two-step `sequential`; a skipped second link counts 1.
@usableFromInline
final class LinkDriver: CompositeDriver, @unchecked Sendable {
    /// What to do once the first link completed.
    @usableFromInline
    enum Decision {
        /// Settle the owner from the first link (then after a failure, recover after a success).
        case finishFromFirst
        /// Run this second link (made by the closure, or the one given up front).
        case run(AnyGraphTask)
    }

    /// Decides, from the completed first link; may call user code (never under the lock).
    let decide: (AnyGraphTask) -> Decision
    /// Settles the owner from the first link's outcome.
    let finishFromFirst: (AnyGraphTask, AnyGraphTask) -> Void
    /// Settles the owner from the second link's outcome.
    let finishFromSecond: (AnyGraphTask, AnyGraphTask) -> Void

    // Guarded by the graph's lock.
    @exclusivity(unchecked) private var phase = 0          // 0: first link, 1: second link, 2: over
    @exclusivity(unchecked) private var aggregate: WeightedAggregate

    @usableFromInline
    init(first: AnyGraphTask, second: AnyGraphTask?,
         decide: @escaping (AnyGraphTask) -> Decision,
         finishFromFirst: @escaping (AnyGraphTask, AnyGraphTask) -> Void,
         finishFromSecond: @escaping (AnyGraphTask, AnyGraphTask) -> Void) {
        self.decide = decide
        self.finishFromFirst = finishFromFirst
        self.finishFromSecond = finishFromSecond
        aggregate = WeightedAggregate(weights: [1, 1])
        super.init(children: second.map { [first, $0] } ?? [first])
    }

    override func adoptChildrenLocked(owner: AnyGraphTask) {
        super.adoptChildrenLocked(owner: owner)
        aggregate.setWeights(children.map { $0._weight } + (children.count < 2 ? [1] : []))
    }

    @usableFromInline override func start(owner: AnyGraphTask) {
        step(owner: owner)
    }

    /// Looks at the link of the current phase and moves on as far as it can.
    private func step(owner: AnyGraphTask) {
        enum Next { case none, start(AnyGraphTask), decide(AnyGraphTask), finish(AnyGraphTask, first: Bool), cancel }
        let next: Next = owner.graph.lock.withLock {
            guard owner._state == .executing, phase < 2 else { return .none }
            guard phase < children.count else { return .none }
            let c = children[phase]
            switch c._state {
            case .notExecuted: return .start(c)
            case .executing: return .none
            case .cancelled: return .cancel
            case .completed:
                if phase == 0 {
                    aggregate.set(0, 1)
                    return .decide(c)
                }
                phase = 2
                return .finish(c, first: false)
            }
        }
        switch next {
        case .none:
            break
        case .start(let c):
            Trampoline.run(c, .start)
        case .cancel:
            owner.cancel(source: CancelSource.child, byParent: false)
        case .finish(let c, _):
            finishFromSecond(owner, c)
        case .decide(let first):
            switch decide(first) {
            case .finishFromFirst:
                let go: Bool = owner.graph.lock.withLock {
                    guard phase == 0 else { return false }
                    phase = 2
                    return true
                }
                if go { finishFromFirst(owner, first) }
            case .run(let second):
                let report: (TaskProgress, AnyGraphTask?, Int)? = owner.graph.lock.withLock {
                    guard phase == 0, owner._state == .executing else { return nil }
                    phase = 1
                    if children.count < 2 {
                        second.adoptLocked(by: owner, index: 1)
                        children.append(second)
                        aggregate.setWeights([aggregate.weights[0], second._weight])
                    }
                    guard let v = aggregate.takeReport() else { return nil }
                    return recordLocked(owner: owner, v)
                }
                if let (p, parent, index) = report { owner.didReportProgress(p, parent: parent, index: index) }
                step(owner: owner)
            }
        }
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        let current: Bool = owner.graph.lock.withLock { index == phase }
        if current { step(owner: owner) }
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let report: (TaskProgress, AnyGraphTask?, Int)? = owner.graph.lock.withLock {
            guard owner._state == .executing, index == phase, phase < 2 else { return nil }
            aggregate.set(index, children[index]._progress.fraction)
            guard let v = aggregate.takeReport() else { return nil }
            return recordLocked(owner: owner, v)
        }
        if let (p, parent, i) = report { owner.didReportProgress(p, parent: parent, index: i) }
    }

    override func weightsChanged(owner: AnyGraphTask) {
        owner.graph.lock.withLock {
            aggregate.setWeights(children.map { $0._weight } + (children.count < 2 ? [1] : []))
        }
    }
}

/// Drives the one-child composites: `map*` and `validate` (outcome transformed), and
/// `timeout` (a timer on the graph's clock races the inner task). The owner reports the
/// inner task's progress, transformed by `mapProgress` where given.
@usableFromInline
final class AdapterDriver: CompositeDriver, @unchecked Sendable {
    /// Settles the owner from the completed inner task.
    let finish: (AnyGraphTask, AnyGraphTask) -> Void
    let mapProgress: (@Sendable (TaskProgress) -> TaskProgress)?
    /// For `timeout`: seconds, and what the owner fails with when they run out.
    let timeout: (seconds: Double, fail: (AnyGraphTask) -> Void)?

    // Guarded by the owner's stripe lock.
    @exclusivity(unchecked) private var timer: (any GraphTimer)?
    @exclusivity(unchecked) private var over = false

    @usableFromInline
    init(inner: AnyGraphTask,
         mapProgress: (@Sendable (TaskProgress) -> TaskProgress)? = nil,
         timeout: (seconds: Double, fail: (AnyGraphTask) -> Void)? = nil,
         finish: @escaping (AnyGraphTask, AnyGraphTask) -> Void) {
        self.finish = finish
        self.mapProgress = mapProgress
        self.timeout = timeout
        super.init(children: [inner])
    }

    var inner: AnyGraphTask { children[0] }

    @usableFromInline override func start(owner: AnyGraphTask) {
        if let timeout {
            // The clock starts at execute().
            let t = owner.graph.clock.schedule(after: timeout.seconds) { [weak owner, weak self] in
                guard let owner, let self else { return }
                Trampoline.enter { self.timedOut(owner: owner) }
            }
            owner.withStripe { _ in timer = t }
        }
        step(owner: owner)
    }

    override func turnLocked() -> Int? { over ? nil : 0 }

    override func completedLocked(owner: AnyGraphTask, index: Int) -> AfterCompleted {
        over = true
        return .finish
    }

    override func finish(owner: AnyGraphTask, from child: AnyGraphTask) {
        if timeout != nil {
            let t = owner.withStripe { _ -> (any GraphTimer)? in
                defer { timer = nil }
                return timer
            }
            t?.cancel()
        }
        finish(owner, child)
    }

    private func timedOut(owner: AnyGraphTask) {
        let go: Bool = owner.withStripe { _ in
            guard !over, owner._state == .executing else { return false }
            over = true
            timer = nil
            return true
        }
        guard go, let timeout else { return }
        inner.cancel(source: CancelSource.timeout, byParent: true)
        timeout.fail(owner)
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        step(owner: owner, settled: index)
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let p = owner.withStripe { _ in inner._progress }
        let mapped = mapProgress.map { $0(p) } ?? p
        let report: (AnyGraphTask?, Int)? = owner.withStripe { _ in
            guard !over, owner._state == .executing, mapped != owner._progress else { return nil }
            return (owner.recordProgressLocked(mapped), owner._index)
        }
        if let (parent, index) = report { owner.didReportProgress(mapped, parent: parent, index: index) }
    }

    override func executingChildrenLocked() -> [AnyGraphTask] {
        if let timer {
            timer.cancel()
            self.timer = nil
        }
        return super.executingChildrenLocked()
    }
}

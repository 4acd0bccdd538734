import Dispatch

/// Drives the one-child composites: `map*` and `validate` (outcome transformed), and
/// `timeout` (a timer on the graph's clock races the inner task). The owner reports the
/// inner task's progress, transformed by `mapProgress` where given.
///
/// Not final only for `QueuedAdapterDriver` (an adapter whose closure runs on a queue).
@usableFromInline
class AdapterDriver: CompositeDriver, @unchecked Sendable {
    /// What `typed` is asked to do.
    @usableFromInline
    enum Op {
        /// Settle the owner from the completed inner task.
        case finish
        /// The same adapter over a copy of the inner task, named as given (nil: the same
        /// name), its closure on `queue` when given.
        case remake(name: String?, queue: DispatchQueue?)
    }

    @usableFromInline
    typealias Typed = (_ op: Op, _ owner: AnyGraphTask?, _ inner: AnyGraphTask) -> AnyGraphTask?

    /// Everything typed, in one closure made in the (specialized) constructor: an adapter
    /// costs one closure context beside the user's.
    let typed: Typed
    let mapProgress: (@Sendable (TaskProgress) -> TaskProgress)?
    /// For `timeout`: seconds, and how the owner fails when they run out (given the name of
    /// the row the inner task shows, `AnyGraphTask.shownName`).
    let timeout: (seconds: Double, fail: (_ owner: AnyGraphTask, _ innerName: String) -> Void)?

    // Guarded by the owner's stripe lock.
    @exclusivity(unchecked) private final var timer: (any GraphTimer)?
    @exclusivity(unchecked) private final var over = false

    @usableFromInline
    init(
        inner: AnyGraphTask,
        mapProgress: (@Sendable (TaskProgress) -> TaskProgress)? = nil,
        timeout: (seconds: Double, fail: (_ owner: AnyGraphTask, _ innerName: String) -> Void)? = nil,
        typed: @escaping Typed
    ) {
        self.typed = typed
        self.mapProgress = mapProgress
        self.timeout = timeout
        super.init(children: [inner])
    }

    final var inner: AnyGraphTask { children[0] }

    /// The queue the adapter's closure runs on (`QueuedAdapterDriver`); nil: the settling thread.
    var queue: DispatchQueue? { nil }

    override var canRemake: Bool { true }

    override func remake(_ copies: [AnyGraphTask], name: String?) -> AnyGraphTask? {
        typed(.remake(name: name, queue: queue), nil, copies[0])
    }

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

    override func turnLocked() -> Int? {
        assertSomeLockHeld()
        return over ? nil : 0
    }

    override func completedLocked(owner: AnyGraphTask, index: Int) -> AfterCompleted {
        owner.assertStripeLocked()
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
        _ = typed(.finish, owner, child)
    }

    private func timedOut(owner: AnyGraphTask) {
        let go: Bool = owner.withStripe { _ in
            guard !over, owner._state == .executing else { return false }
            over = true
            timer = nil
            return true
        }
        guard go, let timeout else { return }
        let shown = inner.shownName
        inner.cancel(source: CancelSource.timeout, byParent: true)
        timeout.fail(owner, shown)
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        step(owner: owner, settled: index)
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        // Unmapped (most adapters): read and record in one lock. Mapped: the user's closure
        // runs between two locks, never under one.
        var p: TaskProgress?
        if let mapProgress { p = mapProgress(owner.withStripe { _ in inner._progress }) }
        let report: ProgressReport? = owner.withStripe { _ in
            let mapped = p ?? inner._progress
            guard !over, owner._state == .executing, mapped != owner._progress else { return nil }
            return recordLocked(owner: owner, mapped)
        }
        report?.deliver(owner)
    }

    override func executingChildrenLocked() -> [AnyGraphTask] {
        assertSomeLockHeld()
        if let timer {
            timer.cancel()
            self.timer = nil
        }
        return super.executingChildrenLocked()
    }
}

extension AnyGraphTask {
    /// The name of the row a user sees for this task: a `map` adapter is folded into its
    /// child's row (taskview's `DisplayTree`), so for one it is its child's name (through
    /// nested adapters), else the task's own.
    var shownName: String {
        var t: AnyGraphTask = self
        while t.kindIndex == KindIndex.map, let child = t.withStripe({ _ in t.driver?.children.first }) {
            t = child
        }
        return t.name
    }
}

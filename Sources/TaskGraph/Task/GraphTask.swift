import Dispatch
import Synchronization

/// A closure-based, lazily executed, cancellable task with weighted progress; every task is
/// a node of a recorded `Graph`. Nothing runs until `execute()` (except `pending` tasks).
///
/// ```swift
/// let fib = GraphTask<Int, MyError>(name: "fib") { succeed, fail in succeed(42) }
/// fib.success { print($0) }.execute()
/// ```
public final class GraphTask<Success: Sendable, Failure: Error>: AnyGraphTask, @unchecked Sendable {
    @usableFromInline typealias Work =
        @Sendable (
            _ succeed: @escaping @Sendable (Success) -> Void,
            _ fail: @escaping @Sendable (Failure) -> Void
        ) -> Void
    /// The closure of a leaf made by `init(name:graph:queue:_:)`, until it runs or the task is
    /// cancelled (stripe locked, or the starting thread). Kept here, typed, rather than
    /// captured by the leaf's `body`: that wrapping closure cost an allocation per task
    /// (W1, W3: one of three), and a function-typed field needs no generic metadata to free.
    /// The `body` of such a leaf captures nothing, so it allocates nothing.
    @exclusivity(unchecked) @usableFromInline var _work: Work?

    /// The outcome once completed (stripe locked). Kept untyped in `AnyGraphTask._outcome`,
    /// so that freeing a task needs no generic metadata.
    @inlinable var _result: Result<Success, Failure>? {
        typealias R = Result<Success, Failure>
        guard _outcome != nil else { return nil }
        // An `Any` keeps a value inline, at the start of its three-word buffer, when the value is
        // bitwise-takable and fits (the ABI's rule, docs/ABI/TypeLayout.rst); every outcome
        // stored here is exactly an `R`. Reading it there skips the runtime's generic cast
        // (~250 instructions, once per subtask when a group collects its results).
        if MemoryLayout<R>.size <= 3 * MemoryLayout<Int>.size,
            MemoryLayout<R>.alignment <= MemoryLayout<Int>.alignment, _isBitwiseTakable(R.self)
        {
            return withUnsafeBytes(of: &_outcome) { $0.load(as: R.self) }
        }
        return (_outcome as! R)
    }

    // MARK: - Creating

    @inlinable
    init(
        graph: Graph, kindIndex: UInt8, name: String?, body: (@Sendable (AnyGraphTask) -> Void)?,
        work: Work? = nil, weight: Double = 1, parent: AnyGraphTask? = nil, index: Int = 0,
        executing: Bool = false, driver: CompositeDriver? = nil
    ) {
        // Set before the node is published: from then on a cancel from another thread may take it.
        _work = work
        super.init(
            graph: graph, kindIndex: kindIndex, name: name, body: body, weight: weight, parent: parent,
            index: index, executing: executing, driver: driver)
    }

    /// A scope's (or span's) node: see `AnyGraphTask.init(scopeOf:graph:kindIndex:name:weight:driver:)`.
    override init(
        scopeOf parent: AnyGraphTask?, graph: Graph, kindIndex: UInt8, name: String, weight: Double,
        driver: ScopeDriver
    ) {
        super.init(
            scopeOf: parent, graph: graph, kindIndex: kindIndex, name: name, weight: weight, driver: driver)
    }

    convenience init(
        graph: Graph, kind: String, name: String?, body: (@Sendable (AnyGraphTask) -> Void)?,
        parent: AnyGraphTask? = nil, index: Int = 0, executing: Bool = false
    ) {
        self.init(
            graph: graph, kindIndex: NodeRecord.kindIndex(kind), name: name, body: body,
            parent: parent, index: index, executing: executing)
    }

    /// A leaf task whose closure gets `succeed` and `fail`. Only the first call counts.
    @inlinable
    public convenience init(
        name: String? = nil, graph: Graph = .shared, queue: DispatchQueue? = nil,
        _ body:
            @escaping @Sendable (
                _ succeed: @escaping @Sendable (Success) -> Void,
                _ fail: @escaping @Sendable (Failure) -> Void
            ) -> Void
    ) {
        self.init(
            graph: graph, kindIndex: KindIndex.task, name: name,
            body: GraphTask.on(queue) { t in
                let t = unsafeDowncast(t, to: GraphTask<Success, Failure>.self)
                // The starting thread owns the work from here (a cancel no longer takes it).
                let work = t._work!
                t._work = nil
                work({ t.settle(.success($0)) }, { t.settle(.failure($0)) })
            }, work: body)
    }

    /// A leaf task whose closure also gets `progress` to report its own progress.
    @inlinable
    public convenience init(
        name: String? = nil, graph: Graph = .shared, queue: DispatchQueue? = nil,
        _ body:
            @escaping @Sendable (
                _ succeed: @escaping @Sendable (Success) -> Void,
                _ fail: @escaping @Sendable (Failure) -> Void,
                _ progress: @escaping @Sendable (TaskProgress) -> Void
            ) -> Void
    ) {
        self.init(
            graph: graph, kindIndex: KindIndex.task, name: name,
            body: GraphTask.on(queue) { t in
                let t = unsafeDowncast(t, to: GraphTask<Success, Failure>.self)
                body({ t.settle(.success($0)) }, { t.settle(.failure($0)) }, { t.report($0) })
            })
    }

    /// A leaf task whose closure also gets the task itself, to poll `isCancelled` or
    /// register `onCancel` for long work.
    @inlinable
    public convenience init(
        name: String? = nil, graph: Graph = .shared, queue: DispatchQueue? = nil,
        _ body:
            @escaping @Sendable (
                _ task: GraphTask<Success, Failure>,
                _ succeed: @escaping @Sendable (Success) -> Void,
                _ fail: @escaping @Sendable (Failure) -> Void,
                _ progress: @escaping @Sendable (TaskProgress) -> Void
            ) -> Void
    ) {
        self.init(
            graph: graph, kindIndex: KindIndex.task, name: name,
            body: GraphTask.on(queue) { t in
                let t = unsafeDowncast(t, to: GraphTask<Success, Failure>.self)
                body(t, { t.settle(.success($0)) }, { t.settle(.failure($0)) }, { t.report($0) })
            })
    }

    /// A leaf like `init(name:graph:queue:_:)` with the task in its closure, whose node has
    /// kind `command` (TaskGraphProcess's commands: viewers show them as commands).
    package convenience init(
        commandNamed name: String?, graph: Graph,
        _ body:
            @escaping @Sendable (
                _ task: GraphTask<Success, Failure>,
                _ succeed: @escaping @Sendable (Success) -> Void,
                _ fail: @escaping @Sendable (Failure) -> Void,
                _ progress: @escaping @Sendable (TaskProgress) -> Void
            ) -> Void
    ) {
        self.init(
            graph: graph, kindIndex: KindIndex.command, name: name,
            body: { t in
                let t = unsafeDowncast(t, to: GraphTask<Success, Failure>.self)
                body(t, { t.settle(.success($0)) }, { t.settle(.failure($0)) }, { t.report($0) })
            })
    }

    /// A task that succeeds with `value` when executed.
    @inlinable
    public static func succeed(
        _ value: Success, name: String? = nil, graph: Graph = .shared,
        queue: DispatchQueue? = nil
    ) -> GraphTask {
        GraphTask(
            graph: graph, kindIndex: KindIndex.task, name: name,
            body: on(queue) { t in
                unsafeDowncast(t, to: GraphTask<Success, Failure>.self).settle(.success(value))
            })
    }

    /// A task that fails with `error` when executed.
    @inlinable
    public static func fail(
        _ error: Failure, name: String? = nil, graph: Graph = .shared,
        queue: DispatchQueue? = nil
    ) -> GraphTask {
        GraphTask(
            graph: graph, kindIndex: KindIndex.task, name: name,
            body: on(queue) { t in
                unsafeDowncast(t, to: GraphTask<Success, Failure>.self).settle(.failure(error))
            })
    }

    /// A leaf body as given (nil queue: it runs inside `execute()`, on the caller's thread),
    /// or dispatched asynchronously to `queue` when the task is executed. Chosen once, when
    /// the task is made, so a body without a queue costs nothing more.
    @inlinable
    static func on(
        _ queue: DispatchQueue?,
        _ body: @escaping @Sendable (AnyGraphTask) -> Void
    ) -> @Sendable (AnyGraphTask) -> Void {
        guard let queue else { return body }
        return { t in queue.async { body(t) } }
    }

    override func workLocked() -> Any? {
        assertStripeLocked()
        return _work
    }

    override func takeWorkLocked() -> Any? {
        assertStripeLocked()
        defer { _work = nil }
        return _work
    }

    override func leafCopier(body: @escaping @Sendable (AnyGraphTask) -> Void, work: Any?) -> (_ name: String) ->
        AnyGraphTask
    {
        let graph = self.graph
        let kindIndex = self.kindIndex
        // A copy of a ref is a ref of the same shared task (recorded and counted as one).
        if kindIndex == KindIndex.ref, let shared = graph.lock.withLock({ _sharing?.source }) {
            return { _ in SharedTask.makeRef(of: shared, parent: nil, index: 0) }
        }
        let work = work as? Work
        return {
            GraphTask(graph: graph, kindIndex: kindIndex, name: $0, body: body, work: work)
        }
    }

    override func makeRef(parent: AnyGraphTask?, index: Int) -> AnyGraphTask {
        let shared = self
        return GraphTask(
            graph: graph, kindIndex: KindIndex.ref, name: name,
            body: { r in
                let ref = unsafeDowncast(r, to: GraphTask<Success, Failure>.self)
                SharedTask.follow(
                    ref, shared, subscribe: { shared.addHandler($0) },
                    settleFrom: { p in
                        ref.settle(p.assumingMemoryBound(to: Result<Success, Failure>.self).pointee)
                    })
            }, parent: parent, index: index)
    }

    // MARK: - Reading

    /// The outcome; nil until completed (and forever if cancelled).
    public var outcome: Result<Success, Failure>? { withStripe { _ in _result } }

    // MARK: - Settling

    /// Completes the task with `result` if it is executing; later calls are ignored.
    @inlinable @discardableResult
    final func settle(_ result: Result<Success, Failure>) -> Bool {
        var message: String?
        if case .failure(let e) = result { message = String(describing: e) }
        let stripe = lockStripeUnretained()
        guard _state == .executing else {
            stripe.unlock()
            return false
        }
        // A scope or span whose parent scope was cancelled meanwhile: cancelled with it.
        if kindIndex == KindIndex.scope || kindIndex == KindIndex.span || kindIndex == KindIndex.service,
            scopeParentCancelledLocked()
        {
            stripe.unlock()
            cancelWithScopeParent()
            return false
        }
        _state = .completed
        _outcome = result
        var reportOne: TaskProgress?
        if message == nil {
            if _fraction < 1 {
                _fraction = 1
                reportOne = _progress
            }
        } else {
            _failed = true
        }
        let released = stripe.with {
            graph.setStateLocked($0, slot, .completed, failed: message != nil, message: message)
        }
        // A `let`: a `var` captured by the escaping closure below would be boxed on the heap.
        let list = takeHandlersLocked()
        _delivering = !list.isEmpty
        let oldDriver = driver
        if let oldDriver {
            oldDriver.ownerSettlingLocked(owner: self)
            driver = nil
        }
        let oldCancelHandlers = _extras == nil ? [] : takeCancelHandlersLocked()
        let parent = executingParentLocked()
        let index = _index
        let turn = _parentTurn
        stripe.unlock()
        if !list.isEmpty || parent != nil {
            Trampoline.enter {
                if let reportOne { list.sendProgress(reportOne) }
                let rest = withUnsafePointer(to: result) {
                    deliverSettled(list, UnsafeRawPointer($0), turn: turn, parent: parent, index: index)
                }
                // The parent's step was queued: the later handlers queue behind it.
                if let rest {
                    Trampoline.deferCall(self) {
                        withUnsafePointer(to: result) { self.deliverRest(list, UnsafeRawPointer($0), from: rest) }
                        if !list.isEmpty { self.deliverLate(result) }
                    }
                } else if !list.isEmpty {
                    deliverLate(result)
                }
            }
        }
        withExtendedLifetime(released) {}
        withExtendedLifetime(oldDriver) {}
        withExtendedLifetime(oldCancelHandlers) {}
        return true
    }

    /// Calls the handlers added while the settled ones were being called (`_delivering`), in
    /// the order they were added, until none is left. Settling thread, inside the trampoline.
    @usableFromInline
    final func deliverLate(_ result: Result<Success, Failure>) {
        while true {
            let lock = lockStripeUnretained()
            guard !handlers.isEmpty else {
                _delivering = false
                lock.unlock()
                return
            }
            let late = takeHandlersLocked()
            lock.unlock()
            withUnsafePointer(to: result) {
                _ = deliverSettled(late, UnsafeRawPointer($0), turn: 0, parent: nil, index: 0)
            }
        }
    }

    // MARK: - Observing

    @inlinable
    final func addHandler(_ entry: HandlerEntry) {
        resolvePendingCancel()
        let lock = lockStripeUnretained()
        switch _state {
        case .completed:
            if _delivering { // after the handlers being called now (see `deliverLate`)
                handlers.append(entry)
                lock.unlock()
                return
            }
            let now = _result!
            lock.unlock()
            // Added by a handler of this task while they run: after the ones before it.
            if Trampoline.current.isSending(self) {
                Trampoline.deferCall(self) {
                    withUnsafePointer(to: now) { self.deliverOne(entry, UnsafeRawPointer($0)) }
                }
                return
            }
            Trampoline.enter {
                withUnsafePointer(to: now) { deliverOne(entry, UnsafeRawPointer($0)) }
            }
        case .cancelled:
            lock.unlock()
            entry.call(.cancelled, nil)
        default:
            handlers.append(entry)
            lock.unlock()
        }
    }

    /// Runs `handler` with the value if the task succeeds (at once if it already has).
    @inlinable @discardableResult
    public func success(_ handler: @escaping @Sendable (Success) -> Void) -> Self {
        addHandler(
            HandlerEntry(isProgress: false) { event, p in
                guard event == .settled else { return }
                if case .success(let v) = p.unsafelyUnwrapped.assumingMemoryBound(to: Result<Success, Failure>.self)
                    .pointee
                {
                    handler(v)
                }
            })
        return self
    }

    /// Runs `handler` with the error if the task fails (at once if it already has).
    @inlinable @discardableResult
    public func failure(_ handler: @escaping @Sendable (Failure) -> Void) -> Self {
        addHandler(
            HandlerEntry(isProgress: false) { event, p in
                guard event == .settled else { return }
                if case .failure(let e) = p.unsafelyUnwrapped.assumingMemoryBound(to: Result<Success, Failure>.self)
                    .pointee
                {
                    handler(e)
                }
            })
        return self
    }

    /// Runs `handler` with the outcome when the task completes, by success or failure, never
    /// when it is cancelled (at once if it already completed).
    @inlinable @discardableResult
    public func completion(_ handler: @escaping @Sendable (Result<Success, Failure>) -> Void) -> Self {
        addHandler(
            HandlerEntry(isProgress: false) { event, p in
                guard event == .settled else { return }
                handler(p.unsafelyUnwrapped.assumingMemoryBound(to: Result<Success, Failure>.self).pointee)
            })
        return self
    }

    /// Runs `handler` with each progress report while executing (only on change; 1.0 once on
    /// success if the last report was below 1, before the success handlers).
    @inlinable @discardableResult
    public func progress(_ handler: @escaping @Sendable (TaskProgress) -> Void) -> Self {
        addHandler(
            HandlerEntry(isProgress: true) { event, p in
                guard event == .progress else { return }
                handler(p.unsafelyUnwrapped.assumingMemoryBound(to: TaskProgress.self).pointee)
            })
        return self
    }

    /// Internal waiters (`value`, `wait`): the outcome, or nil when cancelled.
    func addWaiter(_ waiter: @escaping @Sendable (Result<Success, Failure>?) -> Void) {
        addHandler(
            HandlerEntry(isProgress: false) { event, p in
                switch event {
                case .settled:
                    waiter(p.unsafelyUnwrapped.assumingMemoryBound(to: Result<Success, Failure>.self).pointee)
                case .cancelled: waiter(nil)
                case .progress: break
                }
            })
    }
}

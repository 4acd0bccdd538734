/// A closure-based, lazily executed, cancellable task with weighted progress; every task is
/// a node of a recorded `Graph`. Nothing runs until `execute()` (except `pending` tasks).
///
/// ```swift
/// let fib = GraphTask<Int, MyError>(name: "fib") { succeed, fail in succeed(42) }
/// fib.success { print($0) }.execute()
/// ```
public final class GraphTask<Success: Sendable, Failure: Error>: AnyGraphTask, @unchecked Sendable {
    /// The closure a leaf task runs.
    enum Body {
        case two(@Sendable (_ succeed: @escaping @Sendable (Success) -> Void,
                            _ fail: @escaping @Sendable (Failure) -> Void) -> Void)
        case three(@Sendable (_ succeed: @escaping @Sendable (Success) -> Void,
                              _ fail: @escaping @Sendable (Failure) -> Void,
                              _ progress: @escaping @Sendable (TaskProgress) -> Void) -> Void)
        case four(@Sendable (_ task: GraphTask<Success, Failure>,
                             _ succeed: @escaping @Sendable (Success) -> Void,
                             _ fail: @escaping @Sendable (Failure) -> Void,
                             _ progress: @escaping @Sendable (TaskProgress) -> Void) -> Void)
        case outcome(Result<Success, Failure>)
    }

    // Guarded by graph.lock.
    var body: Body?
    var _result: Result<Success, Failure>?
    var handlers = HandlerList<Success, Failure>()

    // MARK: - Creating

    init(graph: Graph, kind: String, name: String?, body: Body?, driver: CompositeDriver? = nil,
         parent: AnyGraphTask? = nil, index: Int = 0, executing: Bool = false) {
        self.body = body
        super.init(graph: graph, kind: kind, name: name, parent: parent, index: index, executing: executing)
        self.driver = driver
    }

    /// A leaf task whose closure gets `succeed` and `fail`. Only the first call counts.
    public convenience init(
        name: String? = nil, graph: Graph = .shared,
        _ body: @escaping @Sendable (_ succeed: @escaping @Sendable (Success) -> Void,
                                     _ fail: @escaping @Sendable (Failure) -> Void) -> Void
    ) {
        self.init(graph: graph, kind: NodeKind.task, name: name, body: .two(body))
    }

    /// A leaf task whose closure also gets `progress` to report its own progress.
    public convenience init(
        name: String? = nil, graph: Graph = .shared,
        _ body: @escaping @Sendable (_ succeed: @escaping @Sendable (Success) -> Void,
                                     _ fail: @escaping @Sendable (Failure) -> Void,
                                     _ progress: @escaping @Sendable (TaskProgress) -> Void) -> Void
    ) {
        self.init(graph: graph, kind: NodeKind.task, name: name, body: .three(body))
    }

    /// A leaf task whose closure also gets the task itself, to poll `isCancelled` or
    /// register `onCancel` for long work.
    public convenience init(
        name: String? = nil, graph: Graph = .shared,
        _ body: @escaping @Sendable (_ task: GraphTask<Success, Failure>,
                                     _ succeed: @escaping @Sendable (Success) -> Void,
                                     _ fail: @escaping @Sendable (Failure) -> Void,
                                     _ progress: @escaping @Sendable (TaskProgress) -> Void) -> Void
    ) {
        self.init(graph: graph, kind: NodeKind.task, name: name, body: .four(body))
    }

    /// A task that succeeds with `value` when executed.
    public static func succeed(_ value: Success, name: String? = nil, graph: Graph = .shared) -> GraphTask {
        GraphTask(graph: graph, kind: NodeKind.task, name: name, body: .outcome(.success(value)))
    }

    /// A task that fails with `error` when executed.
    public static func fail(_ error: Failure, name: String? = nil, graph: Graph = .shared) -> GraphTask {
        GraphTask(graph: graph, kind: NodeKind.task, name: name, body: .outcome(.failure(error)))
    }

    // MARK: - Reading

    /// The outcome; nil until completed (and forever if cancelled).
    public var outcome: Result<Success, Failure>? { graph.lock.withLock { _result } }

    // MARK: - Running

    override func run() {
        let (b, d) = graph.lock.withLock { (body, driver) }
        if let d {
            d.start(owner: self)
            return
        }
        switch b {
        case .outcome(let r)?:
            settle(r)
        case .two(let f)?:
            f({ [self] in settle(.success($0)) }, { [self] in settle(.failure($0)) })
        case .three(let f)?:
            f({ [self] in settle(.success($0)) }, { [self] in settle(.failure($0)) },
              { [self] in report($0) })
        case .four(let f)?:
            f(self, { [self] in settle(.success($0)) }, { [self] in settle(.failure($0)) },
              { [self] in report($0) })
        case nil:
            break
        }
    }

    /// Completes the task with `result` if it is executing; later calls are ignored.
    func settle(_ result: Result<Success, Failure>) {
        var message: String?
        if case .failure(let e) = result { message = String(describing: e) }
        var list = HandlerList<Success, Failure>()
        var parent: AnyGraphTask?
        var index = 0
        var reportOne: TaskProgress?
        var released: AnyGraphTask?
        var garbage: (Body?, CompositeDriver?, [@Sendable () -> Void]) = (nil, nil, [])
        let done: Bool = graph.lock.withLock {
            guard _state == .executing else { return false }
            _state = .completed
            _result = result
            if message == nil {
                if _progress.fraction < 1 {
                    _progress.fraction = 1
                    reportOne = _progress
                }
            } else {
                _failed = true
            }
            released = graph.setStateLocked(rawID, .completed, failed: message != nil, message: message)
            swap(&list, &handlers)
            garbage = (body, driver, _cancelHandlers)
            body = nil
            driver = nil
            _cancelHandlers = []
            parent = executingParentLocked()
            index = _index
            return true
        }
        guard done else { return }
        Trampoline.enter {
            if let reportOne { list.forEachProgress { $0(reportOne) } }
            list.forEach { $0.call(with: result) }
            if let parent { Trampoline.run(parent, .childSettled, index) }
        }
        withExtendedLifetime((released, garbage)) {}
    }

    /// Reports the task's own progress: recorded and passed on only while executing and only
    /// when the fraction or the info changed.
    func report(_ p: TaskProgress) {
        var list = HandlerList<Success, Failure>()
        var parent: AnyGraphTask?
        var index = 0
        let changed: Bool = graph.lock.withLock {
            guard _state == .executing, p != _progress else { return false }
            parent = recordProgressLocked(p)
            index = _index
            if handlers.progressCount > 0 { list = handlers }
            return true
        }
        guard changed else { return }
        Trampoline.enter { didReport(p, list: list, parent: parent, index: index) }
    }

    /// Progress computed by a composite driver (its aggregate), already recorded.
    override func didReportProgress(_ p: TaskProgress, parent: AnyGraphTask?, index: Int) {
        let list: HandlerList<Success, Failure> = graph.lock.withLock {
            handlers.progressCount > 0 ? handlers : HandlerList()
        }
        didReport(p, list: list, parent: parent, index: index)
    }

    private func didReport(_ p: TaskProgress, list: HandlerList<Success, Failure>,
                           parent: AnyGraphTask?, index: Int) {
        list.forEachProgress { $0(p) }
        if let parent { Trampoline.run(parent, .childProgress, index) }
    }

    override func droppedOnCancel() -> Any? {
        var list = HandlerList<Success, Failure>()
        let b: Body? = graph.lock.withLock {
            swap(&list, &handlers)
            defer { body = nil }
            return body
        }
        return (b, list)
    }

    override func notifyCancelled(_ dropped: Any?) {
        guard let (_, list) = dropped as? (Body?, HandlerList<Success, Failure>) else { return }
        list.forEach { if case .settled(let h) = $0 { h(nil) } }
    }

    // MARK: - Observing

    func addHandler(_ h: Handler<Success, Failure>) {
        var now: Result<Success, Failure>?
        var cancelled = false
        graph.lock.withLock {
            switch _state {
            case .completed: now = _result
            case .cancelled: cancelled = true
            default: handlers.append(h)
            }
        }
        if let now {
            Trampoline.enter { h.call(with: now) }
        } else if cancelled, case .settled(let w) = h {
            w(nil)
        }
    }

    /// Runs `handler` with the value if the task succeeds (at once if it already has).
    @discardableResult
    public func success(_ handler: @escaping @Sendable (Success) -> Void) -> Self {
        addHandler(.success(handler))
        return self
    }

    /// Runs `handler` with the error if the task fails (at once if it already has).
    @discardableResult
    public func failure(_ handler: @escaping @Sendable (Failure) -> Void) -> Self {
        addHandler(.failure(handler))
        return self
    }

    /// Runs `handler` with the outcome when the task completes, by success or failure, never
    /// when it is cancelled (at once if it already completed).
    @discardableResult
    public func completion(_ handler: @escaping @Sendable (Result<Success, Failure>) -> Void) -> Self {
        addHandler(.completion(handler))
        return self
    }

    /// Runs `handler` with each progress report while executing (only on change; 1.0 once on
    /// success if the last report was below 1, before the success handlers).
    @discardableResult
    public func progress(_ handler: @escaping @Sendable (TaskProgress) -> Void) -> Self {
        addHandler(.progress(handler))
        return self
    }
}

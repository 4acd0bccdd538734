import Dispatch

extension GraphTask where Success == Void, Failure == Never {
    /// A task that succeeds `seconds` after it is executed, on the graph's clock. With a
    /// `queue`, the timer is started there and the task succeeds there (asynchronously), so
    /// its handlers run on that queue; without one it succeeds on the clock's thread.
    public static func delay(
        seconds: Double, name: String? = nil, graph: Graph = .shared,
        queue: DispatchQueue? = nil
    ) -> GraphTask {
        GraphTask(
            graph: graph, kindIndex: KindIndex.delay, name: name,
            body: on(queue) { task in
                let t = unsafeDowncast(task, to: GraphTask.self)
                let timer = task.graph.clock.schedule(after: seconds) {
                    if let queue { queue.async { t.settle(.success(())) } } else { t.settle(.success(())) }
                }
                task.onCancel { timer.cancel() }
            })
    }
}

/// Dispatch deadlines as tasks.
extension DispatchQueue {
    /// A task (on `Graph.shared`) that succeeds on this queue at `deadline` once executed.
    public func asyncAfter(deadline: DispatchTime) -> GraphTask<Void, Never> {
        GraphTask(
            graph: .shared, kindIndex: KindIndex.delay, name: "asyncAfter",
            body: { [self] task in
                let t = unsafeDowncast(task, to: GraphTask<Void, Never>.self)
                asyncAfter(deadline: deadline) { t.settle(.success(())) }
            })
    }
}

extension GraphTask {
    /// Like `success(_:)`, with the handler run on `queue`.
    @discardableResult
    public func success(on queue: DispatchQueue, _ handler: @escaping @Sendable (Success) -> Void) -> Self {
        success { v in queue.async { handler(v) } }
    }

    /// Like `failure(_:)`, with the handler run on `queue`.
    @discardableResult
    public func failure(on queue: DispatchQueue, _ handler: @escaping @Sendable (Failure) -> Void) -> Self {
        failure { e in queue.async { handler(e) } }
    }

    /// Like `completion(_:)`, with the handler run on `queue`.
    @discardableResult
    public func completion(
        on queue: DispatchQueue,
        _ handler: @escaping @Sendable (Result<Success, Failure>) -> Void
    ) -> Self {
        completion { r in queue.async { handler(r) } }
    }

    /// Like `progress(_:)`, with the handler run on `queue` (in order per queue).
    @discardableResult
    public func progress(on queue: DispatchQueue, _ handler: @escaping @Sendable (TaskProgress) -> Void) -> Self {
        progress { p in queue.async { handler(p) } }
    }
}

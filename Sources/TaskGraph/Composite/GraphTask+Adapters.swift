import Dispatch

/// One-child adapters: `map*`, `validate`, `timeout` and `retry`. Each is a node of its own
/// (kind `map`, `validate`, `timeout`, `retry`), parent of the task it adapts.
extension GraphTask {
    /// Transforms the value of a success.
    ///
    /// With a `queue`, `f` runs on that queue (and the task settles there), taking its turn
    /// among that queue's handlers of this task in registration order, like Deferred's
    /// `map(upon:)`: `t.success(on: q) {h1}; t.mapResult(on: q) {...}.execute();
    /// t.success(on: q) {h3}` runs h1, `f`, then h3 on `q`. Its turn is taken when it is
    /// executed. Without a queue, `f` runs on the thread that settles this task.
    @inlinable
    public func mapResult<S2>(
        name: String? = nil, on queue: DispatchQueue? = nil,
        _ f: @escaping @Sendable (Success) -> S2
    ) -> GraphTask<S2, Failure> {
        valueAdapter(name: name, queue: queue, f)
    }

    /// Transforms the error of a failure. With a `queue`, `f` runs there in its turn among
    /// that queue's handlers of this task (see `mapResult(name:on:_:)`).
    @inlinable
    public func mapError<F2>(
        name: String? = nil, on queue: DispatchQueue? = nil,
        _ f: @escaping @Sendable (Failure) -> F2
    ) -> GraphTask<Success, F2> {
        mapOutcome(name: name, on: queue) { $0.mapError(f) }
    }

    /// Transforms the outcome. With a `queue`, `f` runs there in its turn among that queue's
    /// handlers of this task (see `mapResult(name:on:_:)`).
    @inlinable
    public func mapOutcome<S2, F2>(
        name: String? = nil, on queue: DispatchQueue? = nil,
        _ f: @escaping @Sendable (Result<Success, Failure>) -> Result<S2, F2>
    ) -> GraphTask<S2, F2> {
        adapter(kindIndex: KindIndex.map, name: name, queue: queue, f)
    }

    /// The same task with its failure type widened to `any Error` (from `Never` or a typed
    /// error), to combine it with tasks that fail with `any Error` (`timeout`, `validate`).
    /// Like `mapError`, it is a `map` adapter, which a dashboard folds into its child's row.
    ///
    /// ```swift
    /// let tick: GraphTask<Void, any Error> = GraphTask.delay(seconds: 1).eraseFailure()
    /// ```
    @inlinable
    public func eraseFailure(name: String? = nil) -> GraphTask<Success, any Error> {
        adapter(kindIndex: KindIndex.map, name: name) { $0.mapError { $0 } }
    }

    /// Transforms every progress report of this task.
    @inlinable
    public func mapProgress(
        name: String? = nil,
        _ f: @escaping @Sendable (TaskProgress) -> TaskProgress
    ) -> GraphTask<Success, Failure> {
        adapter(kindIndex: KindIndex.map, name: name, mapProgress: f) { $0 }
    }

    /// Reports a fraction `f` of this task as `a + f * (b - a)`: with (0.6, 1), 0.5 becomes 0.8.
    @inlinable
    public func mapProgress(
        byScalingFractionIntoRange range: (Double, Double),
        name: String? = nil
    ) -> GraphTask<Success, Failure> {
        let (a, b) = range
        return mapProgress(name: name) { p in TaskProgress(a + p.fraction * (b - a), info: p.info) }
    }

    /// Fails with `TaskValidationError(message)` when `predicate` rejects the value.
    @inlinable
    public func validate(
        _ message: String = "validation failed", name: String? = nil,
        _ predicate: @escaping @Sendable (Success) -> Bool
    ) -> GraphTask<Success, any Error> {
        adapter(kindIndex: KindIndex.validate, name: name) { r -> Result<Success, any Error> in
            switch r {
            case .success(let v):
                return predicate(v) ? .success(v) : .failure(TaskValidationError(message: message))
            case .failure(let e):
                return .failure(e)
            }
        }
    }

    /// Fails with `TimeoutError` if this task has not completed `seconds` after `execute()`
    /// (on the graph's clock); the inner task is then cancelled with source `timeout`. The
    /// error names the task a user sees: for a `map` adapter (`mapResult`, `mapError`,
    /// `eraseFailure`, ...), which a dashboard folds into its child's row, the child's name.
    @inlinable
    public func timeout(seconds: Double, name: String? = nil) -> GraphTask<Success, any Error> {
        precondition(seconds.isFinite && seconds >= 0, "timeout(seconds:) needs a finite, non-negative number")
        let owner = GraphTask<Success, any Error>(graph: graph, kindIndex: KindIndex.timeout, name: name, body: nil)
        let driver =
            (AdapterDriver(
                inner: self,
                timeout: (
                    seconds,
                    { owner, innerName in
                        unsafeDowncast(owner, to: GraphTask<Success, any Error>.self)
                            .settle(.failure(TimeoutError(seconds: seconds, taskName: innerName)))
                    }
                ),
                typed: { op, owner, inner in
                    let task = unsafeDowncast(inner, to: GraphTask.self)
                    switch op {
                    case .finish:
                        unsafeDowncast(owner!, to: GraphTask<Success, any Error>.self).settle(
                            task._result!.mapError { $0 })
                        return nil
                    case .remake(let n, _):
                        return task.timeout(seconds: seconds, name: n ?? name)
                    }
                }))
        owner.install(driver)
        return owner
    }

    /// Up to `max(attempts, 1)` attempts: this task first, then fresh copies of it (same
    /// closure, same structure; handlers are not copied). Fails with the last error.
    @inlinable
    public func retry(_ attempts: Int, name: String? = nil) -> GraphTask {
        let owner = GraphTask(graph: graph, kindIndex: KindIndex.retry, name: name, body: nil)
        let driver = RetryDriver(
            first: self, attempts: attempts, copier: makeCopier(),
            finish: { owner, attempt in
                let r = unsafeDowncast(attempt, to: GraphTask.self)._result!
                unsafeDowncast(owner, to: GraphTask.self).settle(r)
            })
        driver.remakeClosure = { c, n in unsafeDowncast(c[0], to: GraphTask.self).retry(attempts, name: n ?? name) }
        owner.install(driver)
        return owner
    }

    /// `mapResult`'s adapter: its driver's closure applies `f` itself. Going through
    /// `mapOutcome` wraps `f` in one more closure, an allocation per `map` (W2: one of six).
    @inlinable
    func valueAdapter<S2>(
        name: String?, queue: DispatchQueue? = nil, _ f: @escaping @Sendable (Success) -> S2
    ) -> GraphTask<S2, Failure> {
        let owner = GraphTask<S2, Failure>(graph: graph, kindIndex: KindIndex.map, name: name, body: nil)
        let driver = AdapterDriver(inner: self, mapProgress: nil) { op, owner, inner in
            let task = unsafeDowncast(inner, to: GraphTask.self)
            switch op {
            case .finish:
                unsafeDowncast(owner!, to: GraphTask<S2, Failure>.self).settle(task._result!.map(f))
                return nil
            case .remake(let n, let queue):
                return task.valueAdapter(name: n ?? name, queue: queue, f)
            }
        }
        // The plain driver is made as if there were no queue (see `link`), a queued one from it.
        if let queue {
            owner.install(QueuedAdapterDriver(queue: queue, from: driver))
        } else {
            owner.install(driver)
        }
        return owner
    }

    @inlinable
    func adapter<S2, F2>(
        kindIndex: UInt8, name: String?, queue: DispatchQueue? = nil,
        mapProgress: (@Sendable (TaskProgress) -> TaskProgress)? = nil,
        _ f: @escaping @Sendable (Result<Success, Failure>) -> Result<S2, F2>
    ) -> GraphTask<S2, F2> {
        let owner = GraphTask<S2, F2>(graph: graph, kindIndex: kindIndex, name: name, body: nil)
        let driver = AdapterDriver(inner: self, mapProgress: mapProgress) { op, owner, inner in
            let task = unsafeDowncast(inner, to: GraphTask.self)
            switch op {
            case .finish:
                unsafeDowncast(owner!, to: GraphTask<S2, F2>.self).settle(f(task._result!))
                return nil
            case .remake(let n, let queue):
                return task.adapter(kindIndex: kindIndex, name: n ?? name, queue: queue, mapProgress: mapProgress, f)
            }
        }
        if let queue {
            owner.install(QueuedAdapterDriver(queue: queue, from: driver))
        } else {
            owner.install(driver)
        }
        return owner
    }

}

/// What `validate` fails with when its predicate rejects the value.
public struct TaskValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message given to `validate`.
    public let message: String
    /// A validation error with `message`.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// What `timeout(seconds:)` fails with when the time runs out first: which task timed out
/// (the inner task's name) and after how long.
public struct TimeoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The time limit, in seconds of the graph's clock.
    public let seconds: Double
    /// The name of the task that did not complete in time.
    public let taskName: String
    /// A timeout of `seconds` for the task named `taskName`.
    public init(seconds: Double, taskName: String = "task") {
        self.seconds = seconds
        self.taskName = taskName
    }
    /// `"fetch" timed out after 2.0 s`.
    public var description: String { "\"\(taskName)\" timed out after \(seconds) s" }
}

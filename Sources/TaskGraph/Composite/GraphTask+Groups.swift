/// The outcome of one subtask of `allSettled`.
public enum Settled<Success, Failure: Error> {
    /// The subtask succeeded with this value.
    case success(Success)
    /// The subtask failed with this error.
    case failure(Failure)
    /// The subtask was cancelled.
    case cancelled
}

extension Settled: Sendable where Success: Sendable, Failure: Sendable {}

extension Settled: Equatable where Success: Equatable, Failure: Equatable {}

extension GraphTask {
    /// Runs `tasks` one after another; fails at once with the first failure (the rest never
    /// run). Succeeds with the results in order; an empty list succeeds with `[]`.
    ///
    /// `maxConcurrent` is taken by every group alike: a `sequential` runs one subtask
    /// at a time whatever it says; it must be at least 1 when given.
    @inlinable
    public static func sequential(
        _ tasks: [GraphTask], maxConcurrent: Int? = nil, name: String? = nil,
        graph: Graph? = nil
    ) -> GraphTask<[Success], Failure> {
        group(.sequential, kindIndex: KindIndex.sequential, tasks, limit: maxConcurrent, name: name, graph: graph) {
            $0
        }
    }

    /// Executes every task at once (at most `maxConcurrent` at a time when given: the rest
    /// stay not executed until a slot frees, and start in order); succeeds when all succeed
    /// (results in order); fails as soon as one fails, cancelling the ones still executing
    /// first (the waiting ones never run).
    @inlinable
    public static func concurrent(
        _ tasks: [GraphTask], maxConcurrent: Int? = nil, name: String? = nil,
        graph: Graph? = nil
    ) -> GraphTask<[Success], Failure> {
        group(.concurrent, kindIndex: KindIndex.concurrent, tasks, limit: maxConcurrent, name: name, graph: graph) {
            $0
        }
    }

    /// Executes every task at once and never fails: reports every outcome in order. A
    /// subtask cancelled from outside counts as `.cancelled` and the others go on.
    @inlinable
    public static func allSettled(
        _ tasks: [GraphTask], maxConcurrent: Int? = nil, name: String? = nil,
        graph: Graph? = nil
    ) -> GraphTask<[Settled<Success, Failure>], Never> {
        settledGroup(tasks, limit: maxConcurrent, name: name, graph: graph) { $0 }
    }

    @inlinable
    static func settledGroup<Out, OutF>(
        _ tasks: [GraphTask], limit: Int? = nil, name: String?, graph: Graph?,
        combine: @escaping @Sendable ([Settled<Success, Failure>]) -> Out
    ) -> GraphTask<Out, OutF> {
        let group = graph ?? tasks.first?.graph ?? .shared
        let owner = GraphTask<Out, OutF>(graph: group, kindIndex: KindIndex.allSettled, name: name, body: nil)
        owner.installGroup(
            remake: { c, n in
                let fresh: GraphTask<Out, OutF> = GraphTask.settledGroup(
                    c.map { unsafeDowncast($0, to: GraphTask.self) }, limit: limit, name: n ?? name, graph: group,
                    combine: combine)
                return fresh
            },
            GroupDriver(
                mode: .allSettled, children: tasks.asAnyTasks, limit: limit,
                finish: { owner, children in
                    let out = children.map { c -> Settled<Success, Failure> in
                        let t = unsafeDowncast(c, to: GraphTask.self)
                        switch t._result {
                        case .success(let v)?: return .success(v)
                        case .failure(let e)?: return .failure(e)
                        case nil: return .cancelled
                        }
                    }
                    unsafeDowncast(owner, to: GraphTask<Out, OutF>.self).settle(.success(combine(out)))
                },
                pass: { _, _ in }))
        return owner
    }

    /// The first task to settle, by success or failure, wins; the others are cancelled
    /// (source `parent`). An empty array is a programmer error.
    @inlinable
    public static func race(_ tasks: [GraphTask], name: String? = nil, graph: Graph? = nil) -> GraphTask {
        precondition(!tasks.isEmpty, "GraphTask.race needs at least one task")
        let owner = GraphTask(graph: graph ?? tasks[0].graph, kindIndex: KindIndex.race, name: name, body: nil)
        let group = graph ?? tasks[0].graph
        owner.installGroup(
            remake: { c, n in
                GraphTask.race(c.map { unsafeDowncast($0, to: GraphTask.self) }, name: n ?? name, graph: group)
            },
            GroupDriver(
                mode: .race, children: tasks.asAnyTasks,
                finish: { _, _ in },
                pass: { owner, winner in
                    let r = unsafeDowncast(winner, to: GraphTask.self)._result!
                    unsafeDowncast(owner, to: GraphTask.self).settle(r)
                }))
        return owner
    }

    /// Runs this task and `other` concurrently; succeeds with both values, fails fast.
    @inlinable
    public func and<B>(_ other: GraphTask<B, Failure>, name: String? = nil) -> GraphTask<(Success, B), Failure> {
        let owner = GraphTask<(Success, B), Failure>(graph: graph, kindIndex: KindIndex.and, name: name, body: nil)
        owner.installGroup(
            remake: { c, n in
                unsafeDowncast(c[0], to: GraphTask.self).and(
                    unsafeDowncast(c[1], to: GraphTask<B, Failure>.self), name: n ?? name)
            },
            GroupDriver(
                mode: .concurrent, children: [self, other],
                finish: { owner, children in
                    let a = unsafeDowncast(children[0], to: GraphTask.self)._result!
                    let b = unsafeDowncast(children[1], to: GraphTask<B, Failure>.self)._result!
                    let o = unsafeDowncast(owner, to: GraphTask<(Success, B), Failure>.self)
                    switch (a, b) {
                    case (.success(let x), .success(let y)): o.settle(.success((x, y)))
                    case (.failure(let e), _), (_, .failure(let e)): o.settle(.failure(e))
                    }
                },
                pass: { owner, failed in
                    let o = unsafeDowncast(owner, to: GraphTask<(Success, B), Failure>.self)
                    if let a = failed as? GraphTask, case .failure(let e)? = a._result {
                        o.settle(.failure(e))
                    } else if let b = failed as? GraphTask<B, Failure>, case .failure(let e)? = b._result {
                        o.settle(.failure(e))
                    }
                }))
        return owner
    }

    @inlinable
    static func group<Out>(
        _ mode: GroupDriver.Mode, kindIndex: UInt8, _ tasks: [GraphTask], limit: Int? = nil, name: String?,
        graph: Graph?, tolerance: GroupTolerance = GroupTolerance(), combine: @escaping @Sendable ([Success]) -> Out
    ) -> GraphTask<Out, Failure> {
        let group = graph ?? tasks.first?.graph ?? .shared
        let owner = GraphTask<Out, Failure>(graph: group, kindIndex: kindIndex, name: name, body: nil)
        owner.installGroup(
            remake: { c, n in
                GraphTask.group(
                    mode, kindIndex: kindIndex, c.map { unsafeDowncast($0, to: GraphTask.self) },
                    limit: limit, name: n ?? name, graph: group, tolerance: tolerance, combine: combine)
            },
            GroupDriver(
                mode: mode, children: tasks.asAnyTasks, limit: limit, tolerance: tolerance,
                finish: { owner, children in
                    var values: [Success] = []
                    values.reserveCapacity(children.count)
                    for c in children {
                        if case .success(let v)? = unsafeDowncast(c, to: GraphTask.self)._result { values.append(v) }
                    }
                    unsafeDowncast(owner, to: GraphTask<Out, Failure>.self).settle(.success(combine(values)))
                },
                pass: { owner, failed in
                    if case .failure(let e)? = unsafeDowncast(failed, to: GraphTask.self)._result {
                        unsafeDowncast(owner, to: GraphTask<Out, Failure>.self).settle(.failure(e))
                    }
                }))
        return owner
    }
}

/// Groups that fold their results back into the element type, so that groups nest inside
/// groups without an adapter node in between (what a builder of arbitrary trees, such as
/// taskview's scenarios, needs).
extension GraphTask {
    /// Like `sequential(_:maxConcurrent:name:graph:)`, folding the results in order with
    /// `combine` (it runs once, when every subtask succeeded).
    @inlinable
    public static func sequential(
        _ tasks: [GraphTask], maxConcurrent: Int? = nil, name: String? = nil, graph: Graph? = nil,
        combine: @escaping @Sendable ([Success]) -> Success
    ) -> GraphTask {
        group(
            .sequential, kindIndex: KindIndex.sequential, tasks, limit: maxConcurrent, name: name, graph: graph,
            combine: combine)
    }

    /// Like `concurrent(_:maxConcurrent:name:graph:)` (at most `maxConcurrent` subtasks
    /// execute at once when given), folding the results in order with `combine` (it runs
    /// once, when every subtask succeeded).
    ///
    /// ```swift
    /// let total = GraphTask.concurrent(downloads, maxConcurrent: 2, combine: { $0.reduce(0, +) })
    /// ```
    @inlinable
    public static func concurrent(
        _ tasks: [GraphTask], maxConcurrent: Int? = nil, name: String? = nil, graph: Graph? = nil,
        combine: @escaping @Sendable ([Success]) -> Success
    ) -> GraphTask {
        group(
            .concurrent, kindIndex: KindIndex.concurrent, tasks, limit: maxConcurrent, name: name, graph: graph,
            combine: combine)
    }

    /// Like `allSettled(_:maxConcurrent:name:graph:)` (it never fails; at most
    /// `maxConcurrent` subtasks execute at once when given), folding the outcomes in order
    /// with `combine`.
    @inlinable
    public static func allSettled(
        _ tasks: [GraphTask], maxConcurrent: Int? = nil, name: String? = nil, graph: Graph? = nil,
        combine: @escaping @Sendable ([Settled<Success, Failure>]) -> Success
    ) -> GraphTask {
        settledGroup(tasks, limit: maxConcurrent, name: name, graph: graph, combine: combine)
    }
}

extension AnyGraphTask {
    @usableFromInline
    func installGroup(remake: @escaping ([AnyGraphTask], String?) -> AnyGraphTask, _ d: CompositeDriver) {
        d.remakeClosure = remake
        install(d)
    }
}

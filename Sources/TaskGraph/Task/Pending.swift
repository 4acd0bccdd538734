extension GraphTask {
    /// A task settled from outside through its resolver. It is executing from its creation.
    /// When the last copy of an unsettled resolver is released, the task is cancelled with
    /// source `resolverReleased`.
    ///
    /// Unlike the other leaf constructors it takes no `queue:`: it has no body to dispatch
    /// (it is executing from its creation, and settles on the thread that calls the
    /// resolver). To run its handlers on a queue, use `success(on:)`, `completion(on:)`...
    public static func pending(
        name: String? = nil,
        graph: Graph = .shared
    ) -> (task: GraphTask, resolver: Resolver<Success, Failure>) {
        let task = GraphTask(graph: graph, kind: NodeKind.pending, name: name, body: nil, executing: true)
        return (task, Resolver(token: ResolverToken(task)))
    }
}

/// Settles a `pending` task from outside. Copies share the task; only the first settle counts.
public struct Resolver<Success: Sendable, Failure: Error>: Sendable {
    let token: ResolverToken<Success, Failure>

    /// Succeeds the task; false if it was already settled or cancelled.
    @discardableResult
    public func succeed(_ value: Success) -> Bool { fill(.success(value)) }

    /// Fails the task; false if it was already settled or cancelled.
    @discardableResult
    public func fail(_ error: Failure) -> Bool { fill(.failure(error)) }

    /// Settles the task with `result`; false if it was already settled or cancelled.
    @discardableResult
    public func fill(_ result: Result<Success, Failure>) -> Bool {
        token.task.settle(result)
    }

    /// Reports the task's progress.
    public func progress(_ p: TaskProgress) { token.task.report(p) }

    /// False once the task is settled or cancelled: the producer can stop working.
    public var needsResolution: Bool { token.task.state == .executing }
}

/// Shared by every copy of a resolver; cancels an unsettled task when the last copy goes.
final class ResolverToken<Success: Sendable, Failure: Error>: Sendable {
    let task: GraphTask<Success, Failure>
    init(_ task: GraphTask<Success, Failure>) { self.task = task }
    deinit { task.cancel(source: CancelSource.resolverReleased) }
}

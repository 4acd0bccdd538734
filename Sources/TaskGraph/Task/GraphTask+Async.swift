extension GraphTask {
    /// A leaf whose body is an `async` closure, run as a Swift task (unstructured, with
    /// `priority`) when the GraphTask is executed, so such bodies run in parallel under
    /// `concurrent`. The body reports progress through `progress`; its value or error settles
    /// the task. Cancelling the GraphTask cancels the Swift task (its `onCancel` handlers,
    /// `withTaskCancellationHandler` included, run); a body that ends by throwing
    /// `CancellationError` cancels the GraphTask (source `api`). Recorded like any leaf. The
    /// body runs with the task's node as the current scope (`GraphScope.current`): scopes
    /// made and roots executed inside it become its children.
    ///
    /// ```swift
    /// let page = GraphTask<Data, any Error>.async(name: "download") { progress in
    ///     try await fetch(url, onProgress: { progress(TaskProgress($0)) })
    /// }
    /// ```
    public static func async(
        name: String? = nil, graph: Graph = .shared, priority: TaskPriority? = nil,
        _ body:
            @escaping @Sendable (_ progress: @escaping @Sendable (TaskProgress) -> Void) async throws(Failure) ->
            Success
    ) -> GraphTask {
        GraphTask(
            graph: graph, kindIndex: KindIndex.task, name: name,
            body: { task in
                let t = unsafeDowncast(task, to: GraphTask<Success, Failure>.self)
                // Its body runs with its node as the current scope: scopes and roots executed
                // inside it become its children (AsyncScopes).
                if !graph.scopesMade.load(ordering: .relaxed) { graph.scopesMade.store(true, ordering: .relaxed) }
                // Whether the body still runs, for the graph's `ignoresCancel` rule.
                let gate = AsyncBodyGate()
                let work = Task(priority: priority) {
                    await ScopeContext.local.withValue(t) {
                        do throws(Failure) {
                            let value = try await body({ t.report($0) })
                            t.settle(.success(value))
                        } catch {
                            if error is CancellationError {
                                t.cancel(source: CancelSource.api)
                            } else {
                                t.settle(.failure(error))
                            }
                        }
                    }
                    if gate.end() { graph.cancelledBodyReturned(t.rawID) }
                }
                let id = t.rawID
                t.onCancel {
                    work.cancel()
                    graph.watchCancelledBody(id, body: gate)
                }
            })
    }
}

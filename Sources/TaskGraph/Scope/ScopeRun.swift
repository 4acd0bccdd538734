/// How `withGraphTask` makes its node and runs its body.
enum ScopeRun {
    /// A value handed between the caller of `withGraphTask` and the child task that runs its
    /// body, which the caller awaits before it goes on: the two never use it at once, so a
    /// body or a result that is not `Sendable` may cross (the caller's isolation is kept by
    /// the body itself, a closure formed in the caller's context).
    struct Transfer<Value>: @unchecked Sendable { // used by one task at a time, see above
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Makes the scope's node, executing, as a child of `parent` when that is a running task of
    /// the same graph, else as a root; with the driver that keeps its children.
    static func makeNode(
        name: String, weight: Double, graph: Graph, parent: AnyGraphTask?,
        kindIndex: UInt8 = KindIndex.scope
    ) -> (GraphTask<Void, any Error>, ScopeDriver) {
        if !graph.scopesMade.load(ordering: .relaxed) { graph.scopesMade.store(true, ordering: .relaxed) }
        let driver = ScopeDriver(derives: kindIndex == KindIndex.scope)
        if let parent, parent.graph === graph,
            let index = parent.withStripe({ _ in parent.scopeDriverLocked()?.reserveLocked() })
        {
            let node = GraphTask<Void, any Error>(
                graph: graph, kindIndex: kindIndex, name: name, body: nil, weight: weight,
                parent: parent, index: index, executing: true)
            var orphan = false
            let report: ProgressReport? = node.withStripe { _ in
                node.driver = driver
                // The parent settled meanwhile (its cancel did not see this child).
                guard let d = parent.driver as? ScopeDriver, parent._state == .executing else {
                    orphan = parent._state == .cancelled
                    return nil
                }
                return d.addLocked(node, index: index, owner: parent)
            }
            if let report { Trampoline.enter { report.deliver(parent) } }
            if orphan { Trampoline.enter { node.cancel(source: CancelSource.parent, byParent: true) } }
            if kindIndex == KindIndex.scope { watch(node, driver) }
            return (node, driver)
        }
        let node = GraphTask<Void, any Error>(
            graph: graph, kindIndex: kindIndex, name: name, body: nil, weight: weight, executing: true)
        node.withStripe { _ in node.driver = driver }
        if kindIndex == KindIndex.scope { watch(node, driver) }
        return (node, driver)
    }

    /// The parent of a scope or span made now: the innermost of the current scope and the
    /// span the current trace context names (when a `GraphTracer` is in use).
    static func currentParent() -> AnyGraphTask? {
        let scope = ScopeContext.node
        guard SpanNodes.lookupInstalled.load(ordering: .relaxed), let span = SpanNodes.contextSpan() else {
            return scope
        }
        guard let scope, scope !== span else { return span }
        return SpanNodes.isAncestor(scope, of: span) ? span : scope
    }

    /// A cancel of the node (from the graph, or from its parent's) cancels the Swift task that
    /// runs the body, if it runs; `run` cancels it at its start otherwise.
    private static func watch(_ node: GraphTask<Void, any Error>, _ driver: ScopeDriver) {
        node.onCancel {
            let task = node.withStripe { _ in driver.swiftTask }
            task?.cancel()
        }
    }

    /// Runs the body in the child task that `withGraphTask` awaits, with the scope current,
    /// and settles the node from its outcome.
    ///
    /// The child task is kept in the driver as an `UnsafeCurrentTask` while (and only while)
    /// this function runs in it, and cancelled under the same lock that clears it: the task
    /// lives at least until this function returns, so the cancel never reaches a task that
    /// is gone. (A task group or a `Task` handle would do the same at the cost of a second
    /// allocation per scope.)
    static func run<T, Failure: Error>(
        _ body: Transfer<(GraphScope) async throws(Failure) -> T>,
        node: GraphTask<Void, any Error>, driver: ScopeDriver
    ) async -> Transfer<Result<T, Failure>> {
        let current = withUnsafeCurrentTask { $0 }
        let cancelledAlready = node.withStripe { _ in
            driver.swiftTask = current
            return node._state == .cancelled
        }
        if cancelledAlready { current?.cancel() }
        let scope = GraphScope(node: node)
        let result: Result<T, Failure> = await ScopeContext.$node.withValue(node) {
            do throws(Failure) {
                return .success(try await body.value(scope))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success:
            node.settle(.success(()))
        case .failure(let error):
            if error is CancellationError || Task.isCancelled {
                // Cancelled by the graph already (its source stays), else by the program.
                node.cancel(source: CancelSource.task)
            } else {
                node.settle(.failure(error))
            }
        }
        node.withStripe { _ in driver.swiftTask = nil }
        return Transfer(result)
    }
}

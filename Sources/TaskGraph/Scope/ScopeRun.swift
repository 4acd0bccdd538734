/// How `withGraphTask` makes its node and runs its body. The generic steps are inlinable, so
/// that they are specialized in the caller's module for its result and error types (generic
/// code run unspecialized looked up the metadata of `Result<T, Failure>` and of the closure
/// types at every call); the rest is plain functions of this module.
@usableFromInline
enum ScopeRun {
    /// A value handed between the caller of `withGraphTask` and the child task that runs its
    /// body, which the caller awaits before it goes on: the two never use it at once, so a
    /// body or a result that is not `Sendable` may cross (the caller's isolation is kept by
    /// the body itself, a closure formed in the caller's context).
    @usableFromInline
    struct Transfer<Value>: @unchecked Sendable { // used by one task at a time, see above
        @usableFromInline let value: Value
        @inlinable init(_ value: Value) { self.value = value }
    }

    /// The body of `withGraphTask`, handed to its child task as `Transfer` hands a value. Its
    /// own type, not `Transfer<(GraphScope) async throws(Failure) -> T>`: a closure kept in a
    /// value generic over the closure's type is stored reabstracted, and each call went
    /// through two conversion thunks (each an async frame of its own).
    @usableFromInline
    struct Body<T, Failure: Error>: @unchecked Sendable { // used by one task at a time, as Transfer
        @usableFromInline let call: (GraphScope) async throws(Failure) -> T
        @inlinable init(_ call: @escaping (GraphScope) async throws(Failure) -> T) { self.call = call }
    }

    /// A scope's node and the driver that keeps its children and its Swift task.
    @usableFromInline
    struct Handle: Sendable {
        @usableFromInline let node: GraphTask<Void, any Error>
        @usableFromInline let driver: ScopeDriver
    }

    /// Checks the weight, then makes the node of a scope named `name`, executing, under the
    /// current scope (or span) of its graph, else as a root (`withGraphTask`'s first step),
    /// with `driver` to keep its children.
    @usableFromInline
    static func open(name: String, weight: Double, graph: Graph?, driver: ScopeDriver) -> Handle {
        // fatalError, not precondition: its message is printed in release builds too.
        if !(weight.isFinite && weight >= 0) {
            fatalError("withGraphTask '\(name)': weight must be finite and >= 0, got \(weight)")
        }
        let parent = currentParent()
        let (node, driver) = makeNode(
            name: name, weight: weight, graph: graph ?? parent?.graph ?? .shared, parent: parent, driver: driver)
        return Handle(node: node, driver: driver)
    }

    /// Runs the body in the child task that `withGraphTask` awaits, with the scope current,
    /// and settles the node from its outcome.
    ///
    /// The child task is published to cancels of the node while (and only while) this
    /// function runs in it (`ScopeDriver.enterSwiftTask`, `exitSwiftTask`): it lives at least
    /// until this function returns, so a cancel never reaches a task that is gone. (A task
    /// group or a `Task` handle would do the same at the cost of a second allocation per
    /// scope.)
    @inlinable
    static func run<T, Failure: Error>(
        _ body: Body<T, Failure>, _ scope: Handle,
        isolation: isolated (any Actor)?
    ) async {
        withUnsafeCurrentTask { scope.driver.enterSwiftTask($0) }
        let result: Result<T, Failure> = await ScopeContext.local.withValue(scope.node) {
            _ = isolation
            do throws(Failure) {
                return .success(try await body.call(GraphScope(node: scope.node)))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success: succeeded(scope)
        case .failure(let error): failed(scope, error)
        }
        scope.driver.putOutcome(result)
    }

    /// `run` for an `async let` (systems without immediate tasks): the same steps, its
    /// outcome returned.
    @inlinable
    static func run<T, Failure: Error>(
        _ body: Body<T, Failure>, _ scope: Handle
    ) async -> Transfer<Result<T, Failure>> {
        withUnsafeCurrentTask { scope.driver.enterSwiftTask($0) }
        let result: Result<T, Failure> = await ScopeContext.local.withValue(scope.node) {
            do throws(Failure) {
                return .success(try await body.call(GraphScope(node: scope.node)))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success: succeeded(scope)
        case .failure(let error): failed(scope, error)
        }
        return Transfer(result)
    }

    /// The body returned: the node completes.
    @usableFromInline
    static func succeeded(_ scope: Handle) {
        scope.node.completeScope()
        if scope.driver.exitSwiftTask() { scope.node.graph.cancelledBodyReturned(scope.node.rawID) }
    }

    /// The body threw `error`: the node is cancelled when that is `CancellationError` or the
    /// task is cancelled (by the graph already, whose source stays, else by the program),
    /// else it fails.
    @usableFromInline
    static func failed(_ scope: Handle, _ error: any Error) {
        if error is CancellationError || Task.isCancelled {
            scope.node.cancel(source: CancelSource.task)
        } else {
            scope.node.settle(.failure(error))
        }
        if scope.driver.exitSwiftTask() { scope.node.graph.cancelledBodyReturned(scope.node.rawID) }
    }

    /// Makes the scope's node, executing, as a child of `parent` when that is a running task of
    /// the same graph, else as a root; with the driver that keeps its children.
    static func makeNode(
        name: String, weight: Double, graph: Graph, parent: AnyGraphTask?,
        kindIndex: UInt8 = KindIndex.scope, driver: ScopeDriver? = nil
    ) -> (GraphTask<Void, any Error>, ScopeDriver) {
        if !graph.scopesMade.load(ordering: .relaxed) { graph.scopesMade.store(true, ordering: .relaxed) }
        let driver = driver ?? ScopeDriver(derives: kindIndex == KindIndex.scope)
        let node = GraphTask<Void, any Error>(
            scopeOf: parent, graph: graph, kindIndex: kindIndex, name: name, weight: weight, driver: driver)
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
}

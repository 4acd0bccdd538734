/// Runs `body` as a node of the graph (kind `scope`) and returns what it returns.
///
/// The node's parent is the scope current when this is called (`GraphScope.current`, which
/// Swift's task-local inheritance carries into `async let`, task-group children and
/// `Task {}`), else it is a root. `body` runs with the caller's isolation, in a child task of
/// the caller: cancelling the node from the graph (`Graph.cancel`, `x` in taskview) cancels
/// that child task and everything it made in structured concurrency, never the caller.
///
/// - `body` returns: the node completes and this returns the value.
/// - `body` throws: the node fails with the error's description, and this rethrows the very
///   error (it throws nothing of its own).
/// - `body` throws `CancellationError`, or throws while its task is cancelled: the node is
///   cancelled (source: the graph's cancel source when the graph asked first, else `task`).
///
/// ```swift
/// let page = try await withGraphTask("fetch \(url)") { scope in
///     try await client.get(url)
/// }
/// ```
///
/// - Parameters:
///   - name: The node's name (cut to 4 KiB; views sanitize it like any name).
///   - weight: How much the node counts in its parent's progress: finite and >= 0 (a
///     precondition, which names the scope when it fails).
///   - graph: The graph to record the node in; nil: the current scope's graph, else
///     `Graph.shared`.
///   - isolation: Where `body` runs: the caller's actor by default.
///   - body: The work; it gets the scope, to report progress or read its id.
@inlinable
public func withGraphTask<T, Failure: Error>(
    _ name: String,
    weight: Double = 1,
    graph: Graph? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (GraphScope) async throws(Failure) -> T
) async throws(Failure) -> T {
    if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
        // The body's task starts at once on the calling thread (with the caller's isolation)
        // and runs there until it first suspends: a body that does not suspend costs no
        // hop to another thread and back, as an `async let` would.
        let scope = ScopeRun.open(name: name, weight: weight, graph: graph, driver: ScopeDriver(derives: true))
        await withoutActuallyEscaping(body) { body in
            _ = isolation // the closure runs where the caller runs
            let transfer = ScopeRun.Body(body)
            await withDiscardingTaskGroup(isolation: isolation) { group in
                group.addImmediateTask {
                    _ = isolation
                    await ScopeRun.run(transfer, scope, isolation: isolation)
                }
            }
        }
        return try scope.driver.takeOutcome(Result<T, Failure>.self).get()
    } else {
        let scope = ScopeRun.open(name: name, weight: weight, graph: graph, driver: ScopeDriver(derives: true))
        let outcome: ScopeRun.Transfer<Result<T, Failure>> = await withoutActuallyEscaping(body) { body in
            _ = isolation // the closure runs where the caller runs
            let transfer = ScopeRun.Body(body)
            async let result = ScopeRun.run(transfer, scope)
            return await result
        }
        return try outcome.value.get()
    }
}

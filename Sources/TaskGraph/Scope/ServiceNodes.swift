/// What `GraphService` (module `TaskGraphServiceLifecycle`) uses to run a service as a node
/// of kind `service`: a scope in all but its kind and, for a service group, what a cancel of
/// the node does. `package`: not API of the library.
package enum ServiceNodes {
    /// Runs `body` as a node of kind `service` named `name` (under the current scope, as
    /// `withGraphTask` does). `cancelInstead`: what `Graph.cancel` of this node does instead
    /// of cancelling it and its body (nil: it cancels as a scope does).
    package static func run(
        _ name: String, graph: Graph?, cancelInstead: (@Sendable () -> Void)?,
        _ body: (GraphScope) async throws -> Void
    ) async throws {
        let parent = ScopeRun.currentParent()
        let (node, driver) = ScopeRun.makeNode(
            name: name, weight: 1, graph: graph ?? parent?.graph ?? .shared, parent: parent,
            kindIndex: KindIndex.service, driver: ScopeDriver(derives: true, cancelInstead: cancelInstead))
        let scope = ScopeRun.Handle(node: node, driver: driver)
        let outcome: ScopeRun.Transfer<Result<Void, any Error>> = await withoutActuallyEscaping(body) { body in
            let transfer = ScopeRun.Body<Void, any Error>(body)
            async let result = ScopeRun.run(transfer, scope)
            return await result
        }
        try outcome.value.get()
    }

    /// Shows `info` on the service's node (`shutting down`), its fraction unchanged.
    package static func info(_ scope: GraphScope, _ info: String) {
        scope.progress(TaskProgress(scope.node.withStripe { _ in scope.node._fraction }, info: info))
    }
}

import ServiceLifecycle
import TaskGraph

/// A swift-service-lifecycle `Service` that runs another one as a node of the graph (kind
/// `service`), so a `ServiceGroup`'s services are rows in `taskview attach`: running while
/// `run()` runs, `shutting down` once graceful shutdown reaches it, completed when `run()`
/// returns, failed when it throws (the error's description), cancelled when it was
/// cancelled.
///
/// ```swift
/// let group = ServiceGroup(configuration: .init(services: [
///     .init(service: GraphService(httpServer, name: "http")),
///     .init(service: GraphService(worker, name: "queue worker")),
/// ], logger: logger))
/// try await GraphService(group, name: "app").run()
/// ```
///
/// A wrapped `ServiceGroup` is a subtree: its wrapped services under it, nested groups
/// nested. Cancelling a service's node (`Graph.cancel`, `x` in taskview) cancels that
/// service's `run()`, and the group reacts as its configuration says for a service that
/// ended; cancelling a `ServiceGroup`'s node calls `triggerGracefulShutdown()` on it instead,
/// so its services shut down in the group's order. Signals work as before.
public struct GraphService<Wrapped: Service>: Service {
    /// The service this one runs.
    public let service: Wrapped
    /// The node's name.
    public let name: String
    /// The graph the node is made in; nil: the current scope's graph, else `Graph.shared`.
    public let graph: Graph?

    /// Wraps `service`; its node is named `name` (default: the service's type name).
    public init(_ service: Wrapped, name: String? = nil, graph: Graph? = nil) {
        self.service = service
        self.name = name ?? String(describing: Wrapped.self)
        self.graph = graph
    }

    /// Runs the service inside its node; rethrows what the service throws.
    public func run() async throws {
        let service = self.service
        var instead: (@Sendable () -> Void)?
        if let group = service as? ServiceGroup {
            instead = { Task { await group.triggerGracefulShutdown() } }
        }
        try await ServiceNodes.run(name, graph: graph, cancelInstead: instead) { scope in
            try await withGracefulShutdownHandler {
                try await service.run()
            } onGracefulShutdown: {
                ServiceNodes.info(scope, "shutting down")
            }
        }
    }
}

import Synchronization
import TaskGraph

/// Variables a program adds to every command it starts, per node (taskview's `TRACEPARENT`:
/// each command's own span in the run's trace). A command's own `environment` wins.
package enum CommandEnvironment {
    /// The provider, in a class: a `Mutex` holding the closure itself wraps it in two more
    /// reabstraction thunks on every `withLock { $0 }` read (Swift 6.3), so each command
    /// started would have made the next one's lookup deeper.
    private final class Provider: Sendable {
        let variables: @Sendable (Graph, NodeID) -> [String: String]
        init(_ variables: @escaping @Sendable (Graph, NodeID) -> [String: String]) { self.variables = variables }
    }

    private static let provider = Mutex<Provider?>(nil)

    /// Sets (or with nil removes) what every command started from now on gets.
    package static func set(_ body: (@Sendable (Graph, NodeID) -> [String: String])?) {
        let box = body.map(Provider.init)
        provider.withLock { $0 = box }
    }

    /// The variables for the command of node `node`.
    static func variables(graph: Graph, node: NodeID) -> [String: String] {
        guard let box = provider.withLock({ $0 }) else { return [:] }
        return box.variables(graph, node)
    }
}

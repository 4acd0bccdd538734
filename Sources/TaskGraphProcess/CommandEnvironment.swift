import Synchronization
import TaskGraph

/// Variables a program adds to every command it starts, per node (taskview's `TRACEPARENT`:
/// each command's own span in the run's trace). A command's own `environment` wins.
package enum CommandEnvironment {
    private static let provider = Mutex<(@Sendable (Graph, NodeID) -> [String: String])?>(nil)

    /// Sets (or with nil removes) what every command started from now on gets.
    package static func set(_ body: (@Sendable (Graph, NodeID) -> [String: String])?) {
        provider.withLock { $0 = body }
    }

    /// The variables for the command of node `node`.
    static func variables(graph: Graph, node: NodeID) -> [String: String] {
        guard let body = provider.withLock({ $0 }) else { return [:] }
        return body(graph, node)
    }
}

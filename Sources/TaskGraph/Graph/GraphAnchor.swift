/// What an observation holds of its graph, so that `cancel()` can reach the graph while it
/// lives and does nothing after it is gone.
///
/// Not a `weak` reference to the graph: the first weak reference to an object gives it a
/// side table for good, and from then on every retain and release of it takes the runtime's
/// slow path. Every task retains its graph, so a graph that was ever observed paid that on
/// every task (profiled: about 8 % of W1 with an observer).
package final class GraphAnchor: @unchecked Sendable { // `graph` behind `lock`
    private let lock = Lock()
    /// The graph, until its deinit starts (`detach()`); not retained.
    private var graph: Unmanaged<Graph>?

    func attach(_ graph: Graph) {
        lock.withLock { self.graph = .passUnretained(graph) }
    }

    /// Called by the graph's deinit: waits for a `withGraph` in progress, then forgets it.
    func detach() {
        lock.withLock { graph = nil }
    }

    /// Runs `body` with the graph if it still exists. The graph cannot be freed meanwhile:
    /// its deinit waits in `detach()` for `lock`. `body` must not keep the graph.
    package func withGraph(_ body: (Graph) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        graph?._withUnsafeGuaranteedRef { body($0) }
    }
}

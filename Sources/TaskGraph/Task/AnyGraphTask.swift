/// The part of every task that does not depend on its result types. (placeholder; the core lands next)
public class AnyGraphTask: @unchecked Sendable {
    public let graph: Graph
    public internal(set) var id: NodeID = NodeID(0)
    init(graph: Graph) { self.graph = graph }
    func cancel(source: String) {}
}

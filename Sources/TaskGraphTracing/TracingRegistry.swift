import TaskGraph
import Tracing

/// The spans of one traced graph, as the registry sees them.
protocol ContextSource: AnyObject, Sendable {
    var graph: Graph? { get }
    func context(for id: Int) -> ServiceContext?
    func endAll()
}

/// Which tracers watch which graph, so `Graph.serviceContext(for:)` can find a node's span
/// (a `Graph` has no room for it: the core module knows nothing of tracing). Entries hold
/// their graph weakly and leave with `cancel()`.
final class TracingRegistry: @unchecked Sendable {   // `sources` behind `lock`
    static let shared = TracingRegistry()

    private let lock = Lock()
    private var sources: [ObjectIdentifier: [any ContextSource]] = [:]

    func add(_ source: any ContextSource, for graph: Graph) {
        lock.withLock { sources[ObjectIdentifier(graph), default: []].append(source) }
    }

    func remove(_ source: any ContextSource) {
        lock.withLock {
            for (key, list) in sources {
                let kept = list.filter { $0 !== source }
                sources[key] = kept.isEmpty ? nil : kept
            }
        }
    }

    /// The first open span of `node` among the graph's tracers.
    func context(of graph: Graph, node: Int) -> ServiceContext? {
        let list = lock.withLock { sources[ObjectIdentifier(graph)] ?? [] }
        for source in list where source.graph === graph {   // a reused address is not this graph
            if let context = source.context(for: node) { return context }
        }
        return nil
    }
}

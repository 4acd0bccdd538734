import TaskGraph
import Tracing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The spans of one traced graph, as the registry sees them.
protocol ContextSource: AnyObject, Sendable {
    /// The traced graph's anchor, held strongly: its identity names the graph while the
    /// source is registered, and (unlike a `weak` reference to the graph, which would give the
    /// graph a side table and every task's retain and release of it the runtime's slow path)
    /// it costs the graph nothing.
    var anchor: GraphAnchor { get }
    func context(for id: Int) -> ServiceContext?
    func endAll()
    /// Reports what is queued (spans made on the tracing thread).
    func flush()
}

/// Which tracers watch which graph, so `Graph.serviceContext(for:)` can find a node's span
/// (a `Graph` has no room for it: the core module knows nothing of tracing). Keyed by the
/// graph's anchor, which every entry keeps alive, so a key is never reused by another graph
/// while its entries exist; entries leave with `cancel()`.
final class TracingRegistry: @unchecked Sendable { // `sources` behind `lock`
    static let shared = TracingRegistry()

    private let lock = Lock()
    private var sources: [ObjectIdentifier: [any ContextSource]] = [:]
    private var installed = false

    func add(_ source: any ContextSource) {
        let install = lock.withLock { () -> Bool in
            sources[ObjectIdentifier(source.anchor), default: []].append(source)
            defer { installed = true }
            return !installed
        }
        // At normal exit, spans still queued for the tracing thread reach the tracer (which
        // may still export them, if its own shutdown comes later).
        if install { atexit { TracingRegistry.shared.flushAll() } }
    }

    func flushAll() {
        let all = lock.withLock { sources.values.flatMap { $0 } }
        for source in all { source.flush() }
    }

    func remove(_ source: any ContextSource) {
        let key = ObjectIdentifier(source.anchor)
        lock.withLock {
            let kept = (sources[key] ?? []).filter { $0 !== source }
            sources[key] = kept.isEmpty ? nil : kept
        }
    }

    /// The first open span of `node` among the graph's tracers.
    func context(of graph: Graph, node: Int) -> ServiceContext? {
        let list = lock.withLock { sources[ObjectIdentifier(graph.anchor)] ?? [] }
        for source in list {
            if let context = source.context(for: node) { return context }
        }
        return nil
    }
}

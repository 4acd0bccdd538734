import TaskGraph
import Tracing

/// Starts the tracing of a graph (`Graph.trace(with:)`).
enum GraphSpanTracer {
    static func start(graph: Graph, tracer: any Tracer) -> any GraphObservation {
        let spans = NodeSpans(tracer: tracer, graph: graph)
        // Atomically with registration, the snapshot tells the names, kinds and parents of the
        // nodes that exist already (they may execute later). `spans` stays locked until it is
        // seeded, so an event on another thread waits for it (lock order: ours, then the
        // graph's, only here, before any event can reach us).
        let observation = spans.seeded {
            graph.snapshotAndObserve { [spans] event in spans.handle(event) }
        }
        let handle = TraceObservation(spans: spans, observation: observation)
        TracingRegistry.shared.add(spans, for: graph)
        return handle
    }
}

/// What `Graph.trace(with:)` returns: cancelling stops the spans and ends those still open.
final class TraceObservation: GraphObservation {
    private let spans: any ContextSource
    private let observation: any GraphObservation

    init(spans: any ContextSource, observation: any GraphObservation) {
        self.spans = spans
        self.observation = observation
    }

    func cancel() {
        observation.cancel()
        TracingRegistry.shared.remove(spans)
        spans.endAll()
    }
}

/// The spans of one traced graph. Events arrive under the graph's lock (in order); `lock`
/// also serves `serviceContext(for:)` from other threads. Not generic over the tracer on
/// purpose: a generic class instantiated from another module runs unspecialized, looking its
/// metadata up at run time on every event (a quarter of its time, profiled). The state is one
/// struct, changed by one mutating call per event, kept behind a pointer: `lock` already
/// makes access exclusive, and a stored `var` paid a dynamic exclusivity check per event.
final class NodeSpans: ContextSource, @unchecked Sendable {   // `table` behind `lock`
    weak var graph: Graph?
    private let lock = Lock()
    private let table: UnsafeMutablePointer<SpanTable>

    init(tracer: any Tracer, graph: Graph) {
        self.graph = graph
        table = .allocate(capacity: 1)
        table.initialize(to: SpanTable(tracer: tracer, clockNow: graph.clock.now))
    }

    deinit {
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Nodes that existed before tracing began: remembered so they get spans if they execute.
    /// Nodes already executing get none (their children's spans attach above them).
    func seeded(_ register: () -> (snapshot: GraphSnapshot, observation: any GraphObservation)) -> any GraphObservation {
        lock.lock()
        defer { lock.unlock() }
        let (snapshot, observation) = register()
        table.pointee.seed(snapshot)
        return observation
    }

    func handle(_ event: GraphEvent) {
        // Events that can carry nothing for a span leave before the lock.
        switch event.change {
        case .output, .ref:
            return   // a command's output lines reach the span as progress info already
        case .progress(_, let progress) where progress.info == nil:
            return
        default:
            break
        }
        lock.lock()
        table.pointee.apply(event)
        lock.unlock()
    }

    func context(for id: Int) -> ServiceContext? {
        lock.withLock { table.pointee.context(for: id) }
    }

    func endAll() {
        let open = lock.withLock { table.pointee.removeAll() }
        let now = DefaultTracerClock.now
        for span in open { span.end(at: now) }
    }
}

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

/// The spans of one traced graph, keyed by node id. Events arrive under the graph's lock (in
/// order); `lock` also serves `serviceContext(for:)` from other threads. Not generic over the
/// tracer on purpose: a generic class instantiated from another module runs unspecialized,
/// looking its metadata up at run time on every event (a quarter of its time, profiled).
final class NodeSpans: ContextSource, @unchecked Sendable {   // state behind `lock`
    struct Node {
        var name: String
        var kind: String
        var weight: Double
        var parent: Int
        var span: (any Span)?
        var events = 0
        var info: String?
        var cancelSource: String?
    }

    private let tracer: any Tracer
    weak var graph: Graph?
    private let lock = Lock()
    private var nodes: [Int: Node] = [:]
    /// Wall-clock nanoseconds at graph-clock time `clockZero`: instants follow the graph's clock.
    private let wallZero: UInt64
    private let clockZero: Double

    init(tracer: any Tracer, graph: Graph) {
        self.tracer = tracer
        self.graph = graph
        wallZero = DefaultTracerClock.now.nanosecondsSinceEpoch
        clockZero = graph.clock.now
    }

    /// Nodes that existed before tracing began: remembered so they get spans if they execute.
    /// Nodes already executing get none (their children's spans attach above them).
    func seeded(_ register: () -> (snapshot: GraphSnapshot, observation: any GraphObservation)) -> any GraphObservation {
        lock.lock()
        defer { lock.unlock() }
        let (snapshot, observation) = register()
        seedLocked(snapshot)
        return observation
    }

    private func seedLocked(_ snapshot: GraphSnapshot) {
        // Executing nodes are kept too (without a span), so descendants find their way up.
        for (id, n) in snapshot.nodes where !n.state.isSettled {
            nodes[id.rawValue] = Node(name: n.name, kind: n.kind, weight: n.weight,
                                      parent: n.parent?.rawValue ?? -1, span: nil)
        }
    }

    func instant(_ time: Double) -> DefaultTracerClock.Timestamp {
        let offset = (time - clockZero) * 1e9
        let ns = offset >= 0 ? wallZero &+ UInt64(offset) : wallZero &- UInt64(min(-offset, Double(wallZero)))
        return DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: ns)
    }

    func handle(_ event: GraphEvent) {
        lock.lock()
        defer { lock.unlock() }
        switch event.change {
        case let .added(id, kind, name, weight, parent, _):
            nodes[id.rawValue] = Node(name: name, kind: kind, weight: weight,
                                      parent: parent?.rawValue ?? -1, span: nil)
        case let .parentSet(id, parent, _):
            nodes[id.rawValue]?.parent = parent.rawValue
        case let .weightChanged(id, weight):
            guard let i = nodes.index(forKey: id.rawValue) else { return }
            nodes.values[i].weight = weight
            nodes.values[i].span?.attributes.set(TaskGraphSpanAttribute.weight, value: .double(weight))
        case let .stateChanged(id, state, failed, message):
            stateChanged(id.rawValue, state, failed, message, at: event.time)
        case let .progress(id, progress):
            guard let info = progress.info, let i = nodes.index(forKey: id.rawValue),
                  let span = nodes.values[i].span, nodes.values[i].info != info else { return }
            nodes.values[i].info = info
            guard nodes.values[i].events < TaskGraphSpanAttribute.maxEvents else { return }
            nodes.values[i].events += 1
            span.addEvent(SpanEvent(name: info, at: instant(event.time),
                                    attributes: [TaskGraphSpanAttribute.fraction: .double(progress.fraction)]))
        case let .cancelRequested(id, source):
            guard let i = nodes.index(forKey: id.rawValue), nodes.values[i].cancelSource == nil else { return }
            nodes.values[i].cancelSource = source
        case let .dropped(ids):
            for id in ids { nodes.removeValue(forKey: id.rawValue) }
        case .output, .ref:
            break   // a command's output lines reach the span as progress info already
        }
    }

    private func stateChanged(_ id: Int, _ state: TaskState, _ failed: Bool, _ message: String?, at time: Double) {
        guard let i = nodes.index(forKey: id) else { return }
        if state == .executing {
            guard nodes.values[i].span == nil else { return }
            let parent = parentContext(of: nodes.values[i].parent)
            let span = tracer.startSpan(nodes.values[i].name, context: parent, ofKind: .internal, at: instant(time),
                                        function: "execute", file: "TaskGraph", line: 0)
            nodes.values[i].span = span
            // A span the tracer does not record (sampled out, a no-op tracer) gets nothing more.
            guard span.isRecording else { return }
            // Built at its final size from a literal (growing an empty one, or reserving
            // through the unspecialized generic, was a fifth of the cost).
            var attributes = SpanAttributes([
                TaskGraphSpanAttribute.kind: .string(nodes.values[i].kind),
                TaskGraphSpanAttribute.id: .int64(Int64(id)),
                TaskGraphSpanAttribute.weight: .double(nodes.values[i].weight),
            ])
            let existing = span.attributes
            if !existing.isEmpty { attributes.merge(existing) }
            span.attributes = attributes
        } else if state.isSettled {
            if let span = nodes.values[i].span {
                if state == .cancelled, let source = nodes.values[i].cancelSource {
                    span.attributes.set(TaskGraphSpanAttribute.cancelSource, value: .string(source))
                }
                if failed { span.setStatus(SpanStatus(code: .error, message: message)) }
                span.end(at: instant(time))
            }
            // Settled nodes never execute again; a node's children start before it settles.
            _ = nodes.remove(at: i)
        }
    }

    /// The span context of the nearest open ancestor, else the caller's task-local context
    /// (`ServiceContext.current`), else a new trace.
    private func parentContext(of parent: Int) -> ServiceContext {
        var p = parent
        var hops = 0
        while p >= 0, hops < 100_000, let i = nodes.index(forKey: p) {
            if let span = nodes.values[i].span { return span.context }
            p = nodes.values[i].parent
            hops += 1
        }
        return ServiceContext.current ?? .topLevel
    }

    func context(for id: Int) -> ServiceContext? {
        lock.withLock { nodes[id]?.span?.context }
    }

    func endAll() {
        let open: [any Span] = lock.withLock {
            let spans = nodes.values.compactMap(\.span)
            nodes.removeAll()
            return spans
        }
        let now = DefaultTracerClock.now
        for span in open { span.end(at: now) }
    }
}

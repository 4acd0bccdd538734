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
///
/// Per node, a slot in a flat array (reused through a free list) found by a `NodeIDTable`:
/// no allocation per node in steady state, and fields are read in place (a dictionary of
/// structs copied the whole record, four strings and a span, on every read).
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

        static let vacant = Node(name: "", kind: "", weight: 0, parent: -1, span: nil)
    }

    private let tracer: any Tracer
    weak var graph: Graph?
    private let lock = Lock()
    private var index = NodeIDTable()
    private var slots: [Node] = []
    private var vacant: [Int32] = []
    private let attributes = SpanAttributeTemplate()
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
        // Executing nodes are kept too (without a span), so descendants find their way up.
        for (id, n) in snapshot.nodes where !n.state.isSettled {
            addLocked(id.rawValue, Node(name: n.name, kind: n.kind, weight: n.weight,
                                        parent: n.parent?.rawValue ?? -1, span: nil))
        }
        return observation
    }

    private func addLocked(_ id: Int, _ node: Node) {
        if let s = index.find(id) { slots[Int(s)] = node; return }
        let s: Int32
        if let free = vacant.popLast() {
            s = free
            slots[Int(s)] = node
        } else {
            s = Int32(slots.count)
            slots.append(node)
        }
        index.insert(id, s)
    }

    private func removeLocked(_ id: Int) {
        guard let s = index.remove(id) else { return }
        slots[Int(s)] = .vacant
        vacant.append(s)
    }

    func instant(_ time: Double) -> DefaultTracerClock.Timestamp {
        let offset = (time - clockZero) * 1e9
        let ns = offset >= 0 ? wallZero &+ UInt64(offset) : wallZero &- UInt64(min(-offset, Double(wallZero)))
        return DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: ns)
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
        defer { lock.unlock() }
        switch event.change {
        case let .added(id, kind, name, weight, parent, _):
            addLocked(id.rawValue, Node(name: name, kind: kind, weight: weight,
                                        parent: parent?.rawValue ?? -1, span: nil))
        case let .parentSet(id, parent, _):
            guard let s = index.find(id.rawValue) else { return }
            slots[Int(s)].parent = parent.rawValue
        case let .weightChanged(id, weight):
            guard let s = index.find(id.rawValue) else { return }
            slots[Int(s)].weight = weight
            slots[Int(s)].span?.attributes.set(TaskGraphSpanAttribute.weight, value: .double(weight))
        case let .stateChanged(id, state, failed, message):
            stateChanged(id.rawValue, state, failed, message, at: event.time)
        case let .progress(id, progress):
            guard let info = progress.info, let s32 = index.find(id.rawValue) else { return }
            let s = Int(s32)
            guard let span = slots[s].span, slots[s].info != info else { return }
            slots[s].info = info
            guard slots[s].events < TaskGraphSpanAttribute.maxEvents else { return }
            slots[s].events += 1
            span.addEvent(SpanEvent(name: info, at: instant(event.time),
                                    attributes: [TaskGraphSpanAttribute.fraction: .double(progress.fraction)]))
        case let .cancelRequested(id, source):
            guard let s = index.find(id.rawValue), slots[Int(s)].cancelSource == nil else { return }
            slots[Int(s)].cancelSource = source
        case let .dropped(ids):
            for id in ids { removeLocked(id.rawValue) }
        case .output, .ref:
            break
        }
    }

    private func stateChanged(_ id: Int, _ state: TaskState, _ failed: Bool, _ message: String?, at time: Double) {
        guard let s32 = index.find(id) else { return }
        let s = Int(s32)
        if state == .executing {
            guard slots[s].span == nil else { return }
            let parent = parentContext(of: slots[s].parent)
            let span = tracer.startSpan(slots[s].name, context: parent, ofKind: .internal, at: instant(time),
                                        function: "execute", file: "TaskGraph", line: 0)
            slots[s].span = span
            // A span the tracer does not record (sampled out, a no-op tracer) gets nothing more.
            guard span.isRecording else { return }
            var attributes = attributes.make(kind: slots[s].kind, id: id, weight: slots[s].weight)
            let existing = span.attributes
            if !existing.isEmpty { attributes.merge(existing) }
            span.attributes = attributes
        } else if state.isSettled {
            if let span = slots[s].span {
                if state == .cancelled, let source = slots[s].cancelSource {
                    span.attributes.set(TaskGraphSpanAttribute.cancelSource, value: .string(source))
                }
                if failed { span.setStatus(SpanStatus(code: .error, message: message)) }
                span.end(at: instant(time))
            }
            // Settled nodes never execute again; a node's children start before it settles.
            removeLocked(id)
        }
    }

    /// The span context of the nearest open ancestor, else the caller's task-local context
    /// (`ServiceContext.current`), else a new trace.
    private func parentContext(of parent: Int) -> ServiceContext {
        var p = parent
        var hops = 0
        while p >= 0, hops < 100_000, let s = index.find(p) {
            if let span = slots[Int(s)].span { return span.context }
            p = slots[Int(s)].parent
            hops += 1
        }
        return ServiceContext.current ?? .topLevel
    }

    func context(for id: Int) -> ServiceContext? {
        lock.withLock {
            guard let s = index.find(id) else { return nil }
            return slots[Int(s)].span?.context
        }
    }

    func endAll() {
        let open: [any Span] = lock.withLock {
            var spans: [any Span] = []
            index.forEach { _, s in
                if let span = slots[Int(s)].span { spans.append(span) }
            }
            index.removeAll()
            slots.removeAll()
            vacant.removeAll()
            return spans
        }
        let now = DefaultTracerClock.now
        for span in open { span.end(at: now) }
    }
}

import TaskGraph
import Tracing

/// The spans of one traced graph, keyed by node id (`NodeSpans` locks it).
///
/// Per node, a slot in a flat array (reused through a free list) found by a `NodeIDTable`:
/// no allocation per node in steady state, and fields are read in place (a dictionary of
/// structs copied the whole record, four strings and a span, on every read).
struct SpanTable {
    struct Node {
        var name: String
        var kind: String
        var weight: Double
        var parent: Int
        var span: (any Span)?
        var started = false
        var events = 0
        var info: String?
        var cancelSource: String?
    }

    private let tracer: any Tracer
    private var index = NodeIDTable()
    private var slots: [Node] = []
    private var vacant: [Int32] = []
    private let attributes = SpanAttributeTemplate()
    /// Wall-clock nanoseconds at graph-clock time `clockZero`: instants follow the graph's clock.
    private let wallZero: UInt64
    private let clockZero: Double

    init(tracer: any Tracer, clockNow: Double) {
        self.tracer = tracer
        wallZero = DefaultTracerClock.now.nanosecondsSinceEpoch
        clockZero = clockNow
    }

    mutating func seed(_ snapshot: GraphSnapshot) {
        // Executing nodes are kept too (without a span), so descendants find their way up.
        for (id, n) in snapshot.nodes where !n.state.isSettled {
            add(id.rawValue, Node(name: n.name, kind: n.kind, weight: n.weight,
                                  parent: n.parent?.rawValue ?? -1, span: nil))
        }
    }

    private mutating func add(_ id: Int, _ node: Node) {
        if let s = index.find(id) { slots[Int(s)] = node; return }
        if let s = vacant.popLast() {
            slots[Int(s)] = node
            index.insert(id, s)
        } else {
            index.insert(id, Int32(slots.count))
            slots.append(node)
        }
    }

    private mutating func remove(_ id: Int) {
        guard let s = index.remove(id) else { return }
        // Let go of what the slot holds; the slot itself is reused.
        slots[Int(s)].name = ""
        slots[Int(s)].span = nil
        slots[Int(s)].info = nil
        slots[Int(s)].cancelSource = nil
        vacant.append(s)
    }

    private func instant(_ time: Double) -> DefaultTracerClock.Timestamp {
        let offset = (time - clockZero) * 1e9
        let ns = offset >= 0 ? wallZero &+ UInt64(offset) : wallZero &- UInt64(min(-offset, Double(wallZero)))
        return DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: ns)
    }

    mutating func apply(_ event: GraphEvent) {
        switch event.change {
        case let .added(id, kind, name, weight, parent, _):
            add(id.rawValue, Node(name: name, kind: kind, weight: weight, parent: parent?.rawValue ?? -1, span: nil))
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
            for id in ids { remove(id.rawValue) }
        case .output, .ref:
            break   // a command's output lines reach the span as progress info already
        }
    }

    private mutating func stateChanged(_ id: Int, _ state: TaskState, _ failed: Bool, _ message: String?, at time: Double) {
        guard let s32 = index.find(id) else { return }
        let s = Int(s32)
        if state == .executing {
            guard !slots[s].started else { return }
            slots[s].started = true
            let parent = Self.parentContext(of: slots[s].parent, index, slots)
            let span = tracer.startSpan(slots[s].name, context: parent, ofKind: .internal, at: instant(time),
                                        function: "execute", file: "TaskGraph", line: 0)
            // A span the tracer does not record (sampled out, a no-op tracer) gets nothing more.
            if span.isRecording {
                var attributes = attributes.make(kind: slots[s].kind, id: id, weight: slots[s].weight)
                let existing = span.attributes
                if !existing.isEmpty { attributes.merge(existing) }
                span.attributes = attributes
            }
            slots[s].span = span
        } else if state.isSettled {
            if let span = slots[s].span {
                if state == .cancelled, let source = slots[s].cancelSource {
                    span.attributes.set(TaskGraphSpanAttribute.cancelSource, value: .string(source))
                }
                if failed { span.setStatus(SpanStatus(code: .error, message: message)) }
                span.end(at: instant(time))
            }
            // Settled nodes never execute again; a node's children start before it settles.
            remove(id)
        }
    }

    /// The span context of the nearest open ancestor, else the caller's task-local context
    /// (`ServiceContext.current`), else a new trace. Static: called on `self` from a mutating
    /// method, it made a copy of the whole table per span.
    private static func parentContext(of parent: Int, _ index: NodeIDTable, _ slots: [Node]) -> ServiceContext {
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
        guard let s = index.find(id) else { return nil }
        return slots[Int(s)].span?.context
    }

    /// Forgets every node; returns the spans still open.
    mutating func removeAll() -> [any Span] {
        var spans: [any Span] = []
        index.forEach { _, s in
            if let span = slots[Int(s)].span { spans.append(span) }
        }
        index.removeAll()
        slots.removeAll()
        vacant.removeAll()
        return spans
    }
}

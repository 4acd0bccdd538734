import TaskGraph
import Tracing

/// The spans of one traced graph, keyed by node id (`NodeSpans` locks it).
///
/// Per node, a slot in a flat array (reused through a free list) found by a `NodeIDTable`:
/// no allocation per node in steady state, and fields are read and written in place (a
/// dictionary of structs copied the whole record, four strings and a span, on every read).
struct SpanTable {
    struct Node {
        var name = ""
        var kind = ""
        var weight = 0.0
        var parent = -1
        var span: (any Span)?
        var started = false
        var events = 0
        var info: String?
        var cancelSource: String?
    }

    private var index = NodeIDTable()
    private var slots: [Node] = []
    private var vacant: [Int32] = []
    private var attributes = SpanAttributeTemplate()

    mutating func seed(_ snapshot: GraphSnapshot) {
        // Executing nodes are kept too (without a span), so descendants find their way up.
        for (id, n) in snapshot.nodes where !n.state.isSettled {
            add(id.rawValue, name: n.name, kind: n.kind, weight: n.weight, parent: n.parent?.rawValue ?? -1)
        }
    }

    /// Remembers a node that may execute later. A reused slot is overwritten field by field
    /// (no temporary record built, copied in and destroyed per node).
    mutating func add(_ id: Int, name: String, kind: String, weight: Double, parent: Int) {
        let s: Int
        if let found = index.find(id) {
            s = Int(found)
            slots[s].span = nil // a node added again starts over (other slots hold no span)
        } else if let free = vacant.popLast() {
            s = Int(free)
            index.insert(id, free)
        } else {
            index.insert(id, Int32(slots.count))
            slots.append(Node())
            s = slots.count - 1
        }
        slots.withUnsafeMutableBufferPointer { b in
            b[s].name = name
            b[s].kind = kind
            b[s].weight = weight
            b[s].parent = parent
            b[s].started = false
            b[s].events = 0
            if b[s].info != nil { b[s].info = nil }
            if b[s].cancelSource != nil { b[s].cancelSource = nil }
        }
    }

    mutating func setParent(_ id: Int, _ parent: Int) {
        guard let s = index.find(id) else { return }
        slots[Int(s)].parent = parent
    }

    /// A renamed node: its span (if open) takes the new name.
    mutating func rename(_ id: Int, _ name: String) {
        guard let s = index.find(id), slots[Int(s)].name != name else { return }
        slots[Int(s)].name = name
        slots[Int(s)].span?.operationName = name
    }

    mutating func setWeight(_ id: Int, _ weight: Double) {
        guard let s = index.find(id) else { return }
        slots[Int(s)].weight = weight
        slots[Int(s)].span?.attributes.set(TaskGraphSpanAttribute.weight, value: .double(weight))
    }

    /// Opens the node's span (once), under the nearest open ancestor's span.
    /// `root`: the context for a node with no open ancestor (the caller's, when it started).
    mutating func start(
        _ id: Int, tracer: any Tracer, at instant: DefaultTracerClock.Timestamp,
        root: @autoclosure () -> ServiceContext?
    ) {
        guard let s32 = index.find(id) else { return }
        let s = Int(s32)
        guard !slots[s].started else { return }
        slots[s].started = true
        let parent = Self.parentContext(of: slots[s].parent, index, slots) ?? root() ?? .topLevel
        let span = tracer.startSpan(
            slots[s].name, context: parent, ofKind: .internal, at: instant,
            function: "execute", file: "TaskGraph", line: 0)
        // A span the tracer does not record (sampled out, a no-op tracer) gets nothing more.
        if span.isRecording {
            var attributes = attributes.make(kind: slots[s].kind, id: id, weight: slots[s].weight)
            let existing = span.attributes
            if !existing.isEmpty { attributes.merge(existing) }
            span.attributes = attributes
        }
        slots[s].span = span
    }

    /// Forgets a settled node (settled nodes never execute again; a node's children start
    /// before it settles); returns its span, moved out, to be finished by the caller, and
    /// sets `cancelSource` to who asked to cancel it.
    mutating func settle(_ id: Int, cancelSource: inout String?) -> (any Span)? {
        guard let s32 = index.remove(id) else { return nil }
        vacant.append(s32)
        let s = Int(s32)
        if slots[s].cancelSource != nil { cancelSource = slots[s].cancelSource.take() }
        return slots[s].span.take()
    }

    /// A change of the node's progress `info` text becomes a span event (at most `maxEvents`).
    mutating func progress(_ id: Int, info: String, fraction: Double, at instant: DefaultTracerClock.Timestamp) {
        guard let s32 = index.find(id) else { return }
        let s = Int(s32)
        guard let span = slots[s].span, slots[s].info != info else { return }
        slots[s].info = info
        guard slots[s].events < TaskGraphSpanAttribute.maxEvents else { return }
        slots[s].events += 1
        span.addEvent(
            SpanEvent(
                name: info, at: instant,
                attributes: [TaskGraphSpanAttribute.fraction: .double(fraction)]))
    }

    /// Who asked first to cancel the node.
    mutating func cancelRequested(_ id: Int, source: String) {
        guard let s = index.find(id), slots[Int(s)].cancelSource == nil else { return }
        slots[Int(s)].cancelSource = source
    }

    /// Nodes released by retention (normally settled and forgotten already).
    mutating func drop(_ ids: [NodeID]) {
        for id in ids {
            guard let s = index.remove(id.rawValue) else { continue }
            // Let go of what the slot holds; the slot itself is reused.
            slots[Int(s)].name = ""
            slots[Int(s)].span = nil
            slots[Int(s)].info = nil
            slots[Int(s)].cancelSource = nil
            vacant.append(s)
        }
    }

    /// The span context of the nearest open ancestor, if any. Static: called on `self` from a
    /// mutating method, it made a copy of the whole table per span.
    private static func parentContext(of parent: Int, _ index: NodeIDTable, _ slots: [Node]) -> ServiceContext? {
        var p = parent
        var hops = 0
        while p >= 0, hops < 100_000, let s = index.find(p) {
            if let span = slots[Int(s)].span { return span.context }
            p = slots[Int(s)].parent
            hops += 1
        }
        return nil
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

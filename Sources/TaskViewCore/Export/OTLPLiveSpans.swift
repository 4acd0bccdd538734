import TaskGraph

/// The spans of a graph that is running, for the live OTLP stream: folds its events as the
/// export folds a log (`OTLPTrace.SpanFold`, the same ids and attributes through
/// `OTLPSpanBuilder`) and hands out each node's span once, when it settles.
package struct OTLPLiveSpans {
    private var fold = OTLPTrace.SpanFold()
    private let builder: OTLPSpanBuilder
    /// The graph clock's time that is the log's `t = 0`.
    private let origin: Double
    /// Nodes settled since the last `takeSettled`, in the order they settled.
    private var settled: [Int] = []
    private var sent = Set<Int>()
    private var lastTime = 0.0

    /// - Parameters:
    ///   - header: the run's log header (`created`, `producer`, `scenario`, `seed` make the ids).
    ///   - origin: the graph clock's time of the log's `t = 0`.
    ///   - process: a command's process, looked up when its span is built.
    package init(
        header: LogHeader, origin: Double, process: @escaping @Sendable (NodeID) -> OTLPProcessInfo? = { _ in nil }
    ) {
        var b = OTLPSpanBuilder(header: header)
        b.process = process
        builder = b
        self.origin = origin
    }

    /// The nodes a graph held before its events are applied (a snapshot).
    package mutating func load(_ snapshot: GraphSnapshot) {
        for id in snapshot.nodes.keys.sorted() {
            guard let n = snapshot.nodes[id] else { continue }
            var s = OTLPTrace.Span(name: n.name, kind: n.kind, weight: n.weight, parent: n.parent?.rawValue ?? -1)
            s.start = n.startTime.map { $0 - origin }
            if n.state.isSettled, s.start != nil {
                s.end = n.endTime.map { $0 - origin } ?? s.start
                s.failed = n.failed
                s.message = n.message
                s.cancelled = n.state == .cancelled
                settled.append(id.rawValue)
            }
            s.refOf = n.refOf?.rawValue ?? -1
            fold.add(id.rawValue, s)
        }
    }

    /// One event of the graph (time on the graph's clock).
    package mutating func apply(_ event: GraphEvent) {
        let t = event.time - origin
        lastTime = max(lastTime, t)
        if case .stateChanged(let id, let state, _, _) = event.change, state.isSettled, !sent.contains(id.rawValue) {
            settled.append(id.rawValue)
        }
        fold.apply(event.change, time: t)
    }

    /// The spans of the nodes that settled since the last call (each node's once).
    package mutating func takeSettled() -> [OTLPSpan] {
        var out: [OTLPSpan] = []
        for id in settled where !sent.contains(id) {
            guard let span = builder.span(id, in: fold, lastTime: lastTime) else { continue }
            sent.insert(id)
            out.append(span)
        }
        settled.removeAll(keepingCapacity: true)
        return out
    }

    /// The spans of nodes that ran but never settled (the run ended without them), ending at
    /// the last event.
    package mutating func takeOpen() -> [OTLPSpan] {
        settled = fold.index.keys.sorted()
        return takeSettled()
    }

    /// W3C `traceparent` of node `id`'s span: the trace of its topmost ancestor, its own
    /// span id (what the span will carry when it is sent).
    package func traceparent(_ id: NodeID) -> String {
        var root = id.rawValue
        var hops = 0
        while let i = fold.index[root], fold.spans[i].parent >= 0, fold.index[fold.spans[i].parent] != nil,
            hops < 1_000_000
        {
            root = fold.spans[i].parent
            hops += 1
        }
        return builder.traceparent(root: root, id: id.rawValue)
    }
}

import TaskGraph

/// Chrome trace / Perfetto JSON of a replay log: one complete (`"ph":"X"`) event per node
/// that ran, timestamps in µs of the graph clock, failed and cancelled nodes marked in the
/// name and in `args`. A `ref` node is a slice like any other, with `args.of` naming the
/// shared node it stands for. Nodes never executed are left out; nodes still running when the log
/// ends last until then.
///
/// Slices are put in lanes (`tid`, named `lane N` by metadata events) so that within one lane
/// a slice is either inside its parent's slice or overlaps nothing: a viewer draws a lane as a
/// flame graph, so tasks that ran side by side must not share one (see `Lanes`).
package enum ChromeTrace {
    struct Span {
        var name = ""
        var kind = ""
        var parent = -1
        var start: Double?
        var end: Double?
        var state: TaskState = .notExecuted
        var failed = false
        var message: String?
        var cancelSource: String?
        /// For a `ref` node: the shared node it stands for (-1: none).
        var refOf = -1
        /// A span's recorded attributes.
        var attributes: [NodeAttribute] = []
        /// The node's first log records (at most `maxLogs`): instant events in its lane.
        var logs: [(time: Double, record: NodeLogRecord)] = []
        /// What retention dropped under the node (its last `summary`).
        var dropped: ChildSummary?
    }

    /// The most log records one node carries as instant events (the first ones).
    static let maxLogs = 128

    /// The spans, folded from the log's events: a dropped node keeps its span.
    struct SpanFold: GraphFold {
        var spans: [Int: Span]

        mutating func nodeAdded(
            id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double
        ) {
            spans[id.rawValue] = Span(name: name, kind: kind, parent: parent?.rawValue ?? -1)
        }

        mutating func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double) {
            spans[id.rawValue]?.parent = parent.rawValue
        }

        mutating func weightChanged(id: NodeID, weight: Double, time: Double) {}

        mutating func stateChanged(id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double) {
            guard var s = spans[id.rawValue] else { return }
            s.state = state
            if state == .executing && s.start == nil { s.start = time }
            if state.isSettled {
                if s.start == nil && state == .completed { s.start = time }
                s.end = time
                s.failed = failed
                s.message = message
            }
            spans[id.rawValue] = s
        }

        mutating func progressReported(id: NodeID, progress: TaskProgress, time: Double) {}

        mutating func cancelRequested(id: NodeID, source: String, time: Double) {
            if spans[id.rawValue]?.cancelSource == nil { spans[id.rawValue]?.cancelSource = source }
        }

        mutating func nodesDropped(ids: [NodeID], time: Double) {}

        mutating func refSet(id: NodeID, of: NodeID, time: Double) {
            spans[id.rawValue]?.refOf = of.rawValue
        }

        mutating func attributesSet(id: NodeID, attributes: [NodeAttribute], time: Double) {
            spans[id.rawValue]?.attributes = attributes
        }

        mutating func renamed(id: NodeID, name: String, time: Double) {
            spans[id.rawValue]?.name = name // a span renamed: its latest name
        }

        mutating func logRecorded(id: NodeID, record: NodeLogRecord, time: Double) {
            guard let n = spans[id.rawValue]?.logs.count, n < maxLogs else { return }
            spans[id.rawValue]?.logs.append((time, record))
        }

        mutating func summarized(id: NodeID?, root: String?, summary: ChildSummary, time: Double) {
            if let id { spans[id.rawValue]?.dropped = summary }
        }
    }

    /// The trace JSON (one document, newline-terminated).
    package static func export(_ log: ReplayLog) -> [UInt8] {
        var spans: [Int: Span] = [:]
        // The log's first snapshot may hold nodes that existed before recording began.
        if let first = log.initialNodes {
            for n in first {
                var s = Span(name: n.name, kind: n.kind, parent: Int(n.parent))
                s.state = n.state
                if n.state != .notExecuted { s.start = 0 }
                if n.state.isSettled { s.end = 0 }
                s.failed = n.failed
                s.message = n.message
                s.refOf = Int(n.refOf)
                s.attributes = n.attributes
                s.dropped = n.droppedChildren
                spans[Int(n.id)] = s
            }
        }
        var fold = SpanFold(spans: spans)
        for e in log.events { fold.apply(e.change, time: e.time) }
        spans = fold.spans
        let order = spans.keys.sorted()
        let lanes = Lanes.assign(spans, order: order, logEnd: micros(log.duration))
        var out = JSONWriter(capacity: spans.count * 160 + 256)
        out.raw("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[")
        var first = true
        func comma() { if first { first = false } else { out.byte(44) } }
        for id in order {
            let s = spans[id]!
            guard let start = s.start, let lane = lanes.lane[id] else { continue }
            let end = s.end ?? log.duration
            let outcome: String
            switch s.state {
            case .completed: outcome = s.failed ? "failed" : "succeeded"
            case .cancelled: outcome = "cancelled"
            case .executing: outcome = "executing"
            case .notExecuted: outcome = "notExecuted"
            }
            comma()
            out.raw("{\"name\":")
            out.string(outcome == "failed" || outcome == "cancelled" ? "\(s.name) [\(outcome)]" : s.name)
            out.raw(",\"cat\":")
            out.string(s.kind)
            out.raw(",\"ph\":\"X\",\"ts\":")
            out.int(micros(start))
            out.raw(",\"dur\":")
            out.int(max(0, micros(end) - micros(start)))
            out.raw(",\"pid\":1,\"tid\":")
            out.int(lane)
            out.raw(",\"args\":{\"id\":")
            out.int(id)
            out.raw(",\"state\":")
            out.string(outcome)
            if let m = s.message {
                out.raw(",\"message\":")
                out.string(m)
            }
            if outcome == "cancelled", let c = s.cancelSource {
                out.raw(",\"cancelSource\":")
                out.string(c)
            }
            if s.parent >= 0 {
                out.raw(",\"parent\":")
                out.int(s.parent)
            }
            if s.refOf >= 0 {
                out.raw(",\"of\":")
                out.int(s.refOf)
            }
            // A span's attributes, after the export's own fields (which win on a clash).
            let own: Set<String> = ["id", "state", "message", "cancelSource", "parent", "of"]
            for a in s.attributes where !own.contains(a.key) {
                out.byte(44)
                out.string(a.key)
                out.byte(58)
                out.string(a.value)
            }
            if let d = s.dropped {
                for (key, value) in ChildSummary.exportFields(d) {
                    out.raw(",\"dropped.")
                    out.raw(key)
                    out.raw("\":")
                    switch value {
                    case .int(let n): out.int(n)
                    case .double(let x): out.double(x)
                    case .string(let t): out.string(t)
                    }
                }
            }
            out.raw("}}")
            for l in s.logs { logEvent(&out, l.record, id: id, lane: lane, time: l.time) }
        }
        comma()
        out.raw("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":")
        out.string(log.header.scenario ?? log.name)
        out.raw("}}")
        for d in 0..<lanes.count {
            out.raw(",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":")
            out.int(d)
            out.raw(",\"args\":{\"name\":\"lane \(d)\"}}")
            out.raw(",{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":")
            out.int(d)
            out.raw(",\"args\":{\"sort_index\":\(d)}}")
        }
        out.raw("]}\n")
        return out.bytes
    }

    static func micros(_ t: Double) -> Int { Int((t * 1_000_000).rounded()) }

    /// A log record as an instant event (`"ph":"i"`, thread scope) in its node's lane:
    /// `args` holds the node's id, the level and the metadata.
    static func logEvent(_ out: inout JSONWriter, _ record: NodeLogRecord, id: Int, lane: Int, time: Double) {
        out.raw(",{\"name\":")
        out.string(record.message)
        out.raw(",\"cat\":\"log\",\"ph\":\"i\",\"s\":\"t\",\"ts\":")
        out.int(micros(time))
        out.raw(",\"pid\":1,\"tid\":")
        out.int(lane)
        out.raw(",\"args\":{\"id\":")
        out.int(id)
        out.raw(",\"level\":")
        out.string(record.level)
        for key in record.metadata.keys.sorted() where key != "id" && key != "level" {
            out.byte(44)
            out.string(key)
            out.byte(58)
            out.string(record.metadata[key] ?? "")
        }
        out.raw("}}")
    }
}

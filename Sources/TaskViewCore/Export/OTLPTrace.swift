import TaskGraph

/// A replay log as an OTLP/JSON `ExportTraceServiceRequest` (the OpenTelemetry protocol's JSON
/// encoding: ids as hex, 64-bit numbers as strings), with the span mapping of
/// `Graph.trace(with:)` (TaskGraphTracing):
///
/// - one span per node that executed (named by the node), its parent the span of the node's
///   nearest executed ancestor; one trace per root of the recorded tree;
/// - times in unix nanoseconds: the header's `created` plus the event's `t` (spans still open
///   when the log ends, a crashed session's, end at its last event);
/// - attributes `taskgraph.kind`, `taskgraph.id`, `taskgraph.weight`, `taskgraph.ref.of` on a
///   `ref` node (the shared node it stands for; the ref is a span like any other), and
///   `taskgraph.cancel.source` on cancelled nodes; a failure is status code 2 (error) with the
///   message, a cancel status code 2 with the message `cancelled`; progress `info` changes
///   are span events (at most 32 a span);
/// - the resource's `service.name` is the log's scenario, else the producer's program name.
///
/// Trace and span ids are derived from the log's header and the node ids, so the same log
/// always exports the same bytes.
public enum OTLPTrace {
    struct Span {
        var name: String
        var kind: String
        var weight: Double
        var parent: Int
        var start: Double?
        var end: Double?
        var failed = false
        var message: String?
        var cancelled = false
        var cancelSource: String?
        var info: String?
        /// Progress infos and log records, in time order (each kind up to its limit).
        var events: [(time: Double, name: String, attributes: [(key: String, value: OTLPValue)])] = []
        var progressEvents = 0
        var logEvents = 0
        var refOf = -1
        /// A span's recorded attributes (`GraphTracer`), exported as string attributes.
        var attributes: [NodeAttribute] = []
        /// What retention dropped under the node (its last `summary`).
        var dropped: ChildSummary?
    }

    /// A log record's span event attributes: `log.level`, then its metadata by key.
    static func logAttributes(_ record: NodeLogRecord) -> [(key: String, value: OTLPValue)] {
        [("log.level", .string(record.level))]
            + record.metadata.keys.sorted().map { ($0, OTLPValue.string(record.metadata[$0] ?? "")) }
    }

    /// The most progress events one span carries.
    static let maxEvents = 32
    /// The most log records one span carries as events (the first ones).
    static let maxLogEvents = 128

    /// The spans in the order their nodes were first added, folded from the log's events: a
    /// dropped node keeps its span.
    struct SpanFold: GraphFold {
        var index: [Int: Int] = [:]
        var spans: [Span] = []

        mutating func add(_ id: Int, _ span: Span) {
            if let i = index[id] {
                spans[i] = span
            } else {
                index[id] = spans.count
                spans.append(span)
            }
        }

        mutating func nodeAdded(
            id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double
        ) {
            add(id.rawValue, Span(name: name, kind: kind, weight: weight, parent: parent?.rawValue ?? -1))
        }

        mutating func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double) {
            if let i = self.index[id.rawValue] { spans[i].parent = parent.rawValue }
        }

        mutating func weightChanged(id: NodeID, weight: Double, time: Double) {
            if let i = index[id.rawValue] { spans[i].weight = weight }
        }

        mutating func refSet(id: NodeID, of: NodeID, time: Double) {
            if let i = index[id.rawValue] { spans[i].refOf = of.rawValue }
        }

        mutating func attributesSet(id: NodeID, attributes: [NodeAttribute], time: Double) {
            if let i = index[id.rawValue] { spans[i].attributes = attributes }
        }

        mutating func renamed(id: NodeID, name: String, time: Double) {
            if let i = index[id.rawValue] { spans[i].name = name } // a span renamed: its latest name
        }

        mutating func stateChanged(id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double) {
            guard let i = index[id.rawValue], spans[i].end == nil else { return }
            if state == .executing, spans[i].start == nil { spans[i].start = time }
            if state.isSettled, spans[i].start != nil {
                spans[i].end = time
                spans[i].failed = failed
                spans[i].message = message
                spans[i].cancelled = state == .cancelled
            }
        }

        mutating func progressReported(id: NodeID, progress: TaskProgress, time: Double) {
            guard let info = progress.info, let i = index[id.rawValue], spans[i].start != nil,
                spans[i].end == nil, spans[i].info != info
            else { return }
            spans[i].info = info
            if spans[i].progressEvents < maxEvents {
                spans[i].progressEvents += 1
                spans[i].events.append((time, info, [("taskgraph.fraction", .double(progress.fraction))]))
            }
        }

        mutating func logRecorded(id: NodeID, record: NodeLogRecord, time: Double) {
            guard let i = index[id.rawValue], spans[i].logEvents < maxLogEvents else { return }
            spans[i].logEvents += 1
            spans[i].events.append((time, record.message, OTLPTrace.logAttributes(record)))
        }

        mutating func cancelRequested(id: NodeID, source: String, time: Double) {
            if let i = index[id.rawValue], spans[i].cancelSource == nil { spans[i].cancelSource = source }
        }

        mutating func nodesDropped(ids: [NodeID], time: Double) {}

        mutating func summarized(id: NodeID?, root: String?, summary: ChildSummary, time: Double) {
            if let id, let i = index[id.rawValue] { spans[i].dropped = summary }
        }
    }

    /// The export (one JSON document, newline-terminated).
    public static func export(_ log: ReplayLog) -> [UInt8] {
        var fold = SpanFold()
        // The log's first snapshot may hold nodes that existed before recording began.
        if let first = log.initialNodes {
            for n in first {
                var s = Span(name: n.name, kind: n.kind, weight: n.weight, parent: Int(n.parent))
                // Executing or completed: it ran. Cancelled: whether it ran is unknown, no span.
                if n.state == .executing || n.state == .completed { s.start = 0 }
                if n.state == .completed { s.end = 0 }
                s.failed = n.failed
                s.message = n.message
                s.cancelled = n.state == .cancelled
                s.refOf = Int(n.refOf)
                s.attributes = n.attributes
                s.dropped = n.droppedChildren
                fold.add(Int(n.id), s)
            }
        }
        for e in log.events { fold.apply(e.change, time: e.time) }
        let builder = OTLPSpanBuilder(header: log.header)
        let ancestry = SpanAncestry(spans: fold.spans, index: fold.index)
        let spans = fold.index.keys.sorted().compactMap {
            builder.span($0, in: fold, lastTime: log.duration, ancestry: ancestry)
        }
        var resource: [(key: String, value: OTLPValue)] = [("service.name", .string(serviceName(log)))]
        if let producer = log.header.producer { resource.append(("taskgraph.producer", .string(producer))) }
        var out = JSONWriter(capacity: spans.count * 400 + 512)
        json(&out, resource: resource, spans: spans)
        out.byte(10)
        return out.withBytes { Array($0) }
    }

    /// An `ExportTraceServiceRequest` in the OTLP/JSON encoding: one resource per service (an
    /// attached program's spans under its own `service.name`), one scope each.
    package static func json(
        _ out: inout JSONWriter, resource: [(key: String, value: OTLPValue)], spans: [OTLPSpan]
    ) {
        out.raw("{\"resourceSpans\":[")
        let groups = OTLPSpan.byService(spans)
        if groups.isEmpty { resourceSpans(&out, resource: resource, spans: []) }
        for (k, group) in groups.enumerated() {
            if k > 0 { out.byte(44) }
            resourceSpans(&out, resource: OTLPSpan.resource(resource, service: group.service), spans: group.spans)
        }
        out.raw("]}")
    }

    /// One `ResourceSpans` object.
    private static func resourceSpans(
        _ out: inout JSONWriter, resource: [(key: String, value: OTLPValue)], spans: ArraySlice<OTLPSpan>
    ) {
        out.raw("{\"resource\":{\"attributes\":")
        attributes(&out, resource)
        out.raw("},\"scopeSpans\":[{\"scope\":{\"name\":\"taskgraph\"},\"spans\":[")
        for (k, s) in zip(0..., spans) {
            if k > 0 { out.byte(44) }
            out.raw("{\"traceId\":\"")
            hex(&out, s.traceHigh, s.traceLow)
            out.raw("\",\"spanId\":\"")
            hex(&out, s.spanID)
            if s.parentSpanID != 0 {
                out.raw("\",\"parentSpanId\":\"")
                hex(&out, s.parentSpanID)
            }
            out.raw("\",\"name\":")
            out.string(s.name)
            out.raw(",\"kind\":1,\"startTimeUnixNano\":\"")
            out.uint(s.start)
            out.raw("\",\"endTimeUnixNano\":\"")
            out.uint(s.end)
            out.raw("\",\"attributes\":")
            attributes(&out, s.attributes)
            if !s.events.isEmpty {
                out.raw(",\"events\":[")
                for (k, ev) in s.events.enumerated() {
                    if k > 0 { out.byte(44) }
                    out.raw("{\"timeUnixNano\":\"")
                    out.uint(ev.time)
                    out.raw("\",\"name\":")
                    out.string(ev.name)
                    out.raw(",\"attributes\":")
                    attributes(&out, ev.attributes)
                    out.byte(125)
                }
                out.byte(93)
            }
            if let error = s.error {
                out.raw(",\"status\":{\"code\":2")
                if let m = error {
                    out.raw(",\"message\":")
                    out.string(m)
                }
                out.byte(125)
            }
            out.byte(125)
        }
        out.raw("]}]}")
    }

    static func attributes(_ out: inout JSONWriter, _ list: [(key: String, value: OTLPValue)]) {
        out.byte(91)
        for (k, a) in list.enumerated() {
            if k > 0 { out.byte(44) }
            out.raw("{\"key\":")
            out.string(a.key)
            switch a.value {
            case .string(let v):
                out.raw(",\"value\":{\"stringValue\":")
                out.string(v)
            case .int(let v):
                out.raw(",\"value\":{\"intValue\":\"")
                out.int(v)
                out.byte(34)
            case .double(let v):
                out.raw(",\"value\":{\"doubleValue\":")
                out.double(v)
            }
            out.raw("}}")
        }
        out.byte(93)
    }

    /// The scenario's name, else the producer's program (its first word, without a directory).
    static func serviceName(_ log: ReplayLog) -> String {
        if let s = log.header.scenario, !s.isEmpty { return s }
        if let p = log.header.producer, let word = p.split(separator: " ").first {
            return String(word.split(separator: "/").last ?? word)
        }
        return "taskgraph"
    }

    /// Unix nanoseconds of graph time `t` (never negative).
    static func nanos(_ zero: UInt64, _ t: Double) -> UInt64 {
        let offset = (t * 1e9).rounded()
        guard offset.isFinite else { return zero }
        if offset >= 0 { return zero &+ UInt64(min(offset, 1e18)) }
        return zero - min(zero, UInt64(min(-offset, 1e18)))
    }

    /// The header's `created` ("2026-01-31T12:00:00Z", fractions and offsets allowed) in unix
    /// nanoseconds; 0 when absent or unreadable.
    static func createdNanos(_ created: String?) -> UInt64 {
        guard let created else { return 0 }
        let c = Array(created.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= c.count else { return nil }
            var v = 0
            for k in from..<from + count {
                guard c[k] >= 48, c[k] <= 57 else { return nil }
                v = v * 10 + Int(c[k] - 48)
            }
            return v
        }
        guard c.count >= 19, c[4] == 45, c[7] == 45, c[10] == 84 || c[10] == 32, c[13] == 58, c[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return 0 }
        var at = 19
        var fraction: UInt64 = 0
        if at < c.count, c[at] == 46 {
            at += 1
            var scale: UInt64 = 100_000_000
            while at < c.count, c[at] >= 48, c[at] <= 57 {
                fraction += UInt64(c[at] - 48) * scale
                scale /= 10
                at += 1
            }
        }
        var offset = 0
        if at < c.count, c[at] == 43 || c[at] == 45, let h = number(at + 1, 2) {
            let m = number(at + 3, 2) ?? number(at + 4, 2) ?? 0 // +0100 or +01:00
            offset = (h * 3600 + m * 60) * (c[at] == 45 ? -1 : 1)
        }
        // Days from the civil date (Howard Hinnant's algorithm), so no locale or TZ matters.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        guard seconds > 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + fraction
    }

    /// The ids' seed: FNV-1a of the header fields, so two sessions get different ids.
    static func logSeed(_ h: LogHeader) -> UInt64 {
        var x: UInt64 = 0xCBF2_9CE4_8422_2325
        for s in [h.created ?? "", h.producer ?? "", h.scenario ?? "", h.seed.map { String($0) } ?? ""] {
            for b in s.utf8 {
                x ^= UInt64(b)
                x &*= 0x0000_0100_0000_01B3
            }
            x ^= 0xFF
            x &*= 0x0000_0100_0000_01B3
        }
        return x
    }

    /// SplitMix64's finalizer of `seed + n`: a bijection in `n`, so distinct nodes get
    /// distinct ids.
    static func mix(_ seed: UInt64, _ n: UInt64) -> UInt64 {
        var z = seed &+ n &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A span id: never zero (OTLP's "no id").
    static func spanID(_ seed: UInt64, _ id: Int) -> UInt64 {
        let v = mix(seed ^ 0x5370_616E, UInt64(id))
        return v == 0 ? 1 : v
    }

    /// 16 lowercase hex digits.
    package static func hexString(_ v: UInt64) -> String {
        var out = JSONWriter(capacity: 16)
        hex(&out, v)
        return out.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    static func hex(_ out: inout JSONWriter, _ values: UInt64...) {
        for v in values {
            var shift = 60
            while shift >= 0 {
                let d = UInt8(truncatingIfNeeded: v >> UInt64(shift)) & 15
                out.byte(d < 10 ? 48 + d : 87 + d)
                shift -= 4
            }
        }
    }
}

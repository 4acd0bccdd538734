import TaskGraph

/// An OTLP attribute value (the kinds the spans use).
package enum OTLPValue: Equatable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
}

/// One span as OTLP carries it, built once (`OTLPSpanBuilder`) and written by either
/// encoding: `OTLPTrace` (OTLP/JSON, the export and `http/json`) or `OTLPProtobuf`
/// (`http/protobuf`). Ids are 0 for "none".
package struct OTLPSpan: Sendable {
    package var traceHigh: UInt64
    package var traceLow: UInt64
    package var spanID: UInt64
    package var parentSpanID: UInt64
    package var name: String
    package var start: UInt64
    package var end: UInt64
    package var attributes: [(key: String, value: OTLPValue)]
    package var events: [(time: UInt64, name: String, attributes: [(key: String, value: OTLPValue)])]
    /// Error status (code 2) when set, with this message (nil: no message).
    package var error: String??
    /// The `service.name` of the span's resource when not the run's: an attached program's
    /// name, for the spans under its `NAME (pid N)` row.
    package var service: String? = nil
}

extension OTLPSpan {
    /// `spans` in runs of the same `service`, in order: one `ResourceSpans` each.
    package static func byService(_ spans: [OTLPSpan]) -> [(service: String?, spans: ArraySlice<OTLPSpan>)] {
        var out: [(service: String?, spans: ArraySlice<OTLPSpan>)] = []
        var start = 0
        for i in spans.indices where i + 1 == spans.count || spans[i + 1].service != spans[i].service {
            out.append((spans[i].service, spans[start...i]))
            start = i + 1
        }
        return out
    }

    /// `resource` with `service.name` set to `service` (when there is one).
    package static func resource(
        _ resource: [(key: String, value: OTLPValue)], service: String?
    ) -> [(key: String, value: OTLPValue)] {
        guard let service else { return resource }
        return [("service.name", .string(service))] + resource.filter { $0.key != "service.name" }
    }
}

/// A command's process, as the live run knows it (`CommandRegistry`); a recorded log does
/// not carry it.
package struct OTLPProcessInfo: Sendable {
    package var commandLine: String
    package var pid: Int32?

    package init(commandLine: String, pid: Int32?) {
        self.commandLine = commandLine
        self.pid = pid
    }
}

/// Turns folded nodes (`OTLPTrace.SpanFold`) into spans: the one mapping of the export and
/// the live stream, so both send the same ids, times and attributes.
package struct OTLPSpanBuilder {
    /// The ids' seed (`OTLPTrace.logSeed` of the log's header).
    package let seed: UInt64
    /// Unix nanoseconds of the log's `t = 0`.
    package let zero: UInt64
    /// A scenario run's name: its root spans carry the CI/CD pipeline attributes.
    package let scenario: String?
    /// A command's process, when known (live runs).
    package var process: @Sendable (NodeID) -> OTLPProcessInfo? = { _ in nil }

    package init(header: LogHeader) {
        seed = OTLPTrace.logSeed(header)
        zero = OTLPTrace.createdNanos(header.created)
        scenario = header.scenario
    }

    /// The pipeline run's id (`cicd.pipeline.run.id`): the log's seed in hex.
    package var runID: String { OTLPTrace.hexString(seed) }

    /// The trace id of the tree whose topmost node is `root`.
    package func traceID(root: Int) -> (UInt64, UInt64) {
        (OTLPTrace.mix(seed ^ 0x7472_6163_6500_0000, UInt64(root)), OTLPTrace.mix(seed, UInt64(root)))
    }

    /// The span id of node `id`.
    package func spanID(_ id: Int) -> UInt64 { OTLPTrace.spanID(seed, id) }

    /// W3C `traceparent` of node `id` in the tree whose topmost node is `root`.
    package func traceparent(root: Int, id: Int) -> String {
        let (high, low) = traceID(root: root)
        return "00-" + OTLPTrace.hexString(high) + OTLPTrace.hexString(low) + "-" + OTLPTrace.hexString(spanID(id))
            + "-01"
    }

    /// The span of node `id`, nil when it never executed. `lastTime`: where spans still
    /// open end. `ancestry`: every span's root and parent span resolved at once (a whole
    /// log's export: linear in a chain's depth); without it they are found by a walk up.
    func span(
        _ id: Int, in fold: OTLPTrace.SpanFold, lastTime: Double, ancestry: OTLPTrace.SpanAncestry? = nil
    ) -> OTLPSpan? {
        guard let at = fold.index[id] else { return nil }
        let s = fold.spans[at]
        guard let start = s.start else { return nil }
        // The nearest executed ancestor is the parent; the topmost ancestor names the trace.
        var parentSpan = -1
        var root = id
        if let ancestry {
            parentSpan = ancestry.parentSpan[at]
            root = ancestry.root[at]
        } else {
            var p = s.parent
            var hops = 0
            while p >= 0, hops < 1_000_000, let i = fold.index[p] {
                if parentSpan < 0, fold.spans[i].start != nil { parentSpan = p }
                root = p
                p = fold.spans[i].parent
                hops += 1
            }
        }
        let (high, low) = traceID(root: root)
        var service: String?
        if let r = fold.index[root], fold.spans[r].kind == TreeModel.programKind {
            service = Self.programName(fold.spans[r].name)
        }
        var attributes: [(key: String, value: OTLPValue)] = [
            ("taskgraph.kind", .string(s.kind)), ("taskgraph.id", .int(id)), ("taskgraph.weight", .double(s.weight)),
        ]
        if s.refOf >= 0 { attributes.append(("taskgraph.ref.of", .int(s.refOf))) }
        if s.cancelled, let source = s.cancelSource { attributes.append(("taskgraph.cancel.source", .string(source))) }
        for a in s.attributes where !a.key.hasPrefix("taskgraph.") { attributes.append((a.key, .string(a.value))) }
        if let d = s.dropped {
            attributes += ChildSummary.exportFields(d).map { ("taskgraph.dropped." + $0.key, $0.value) }
        }
        if scenario != nil, root == id, s.parent < 0 || fold.index[s.parent] == nil {
            attributes.append(("cicd.pipeline.name", .string(s.name)))
            attributes.append(("cicd.pipeline.run.id", .string(runID)))
            if s.end != nil { attributes.append(("cicd.pipeline.result", .string(pipelineResult(s, fold)))) }
        }
        if s.kind == NodeKind.command {
            attributes.append(("cicd.pipeline.task.name", .string(s.name)))
            attributes.append(("cicd.pipeline.task.run.id", .string(OTLPTrace.hexString(spanID(id)))))
            if s.end != nil { attributes.append(("cicd.pipeline.task.run.result", .string(result(s)))) }
            if let info = process(NodeID(id)) {
                attributes.append(("process.command_line", .string(info.commandLine)))
                if let pid = info.pid { attributes.append(("process.pid", .int(Int(pid)))) }
            }
            if let code = Self.exitCode(s) { attributes.append(("process.exit.code", .int(code))) }
        }
        return OTLPSpan(
            traceHigh: high, traceLow: low, spanID: spanID(id), parentSpanID: parentSpan >= 0 ? spanID(parentSpan) : 0,
            name: s.name, start: OTLPTrace.nanos(zero, start),
            end: OTLPTrace.nanos(zero, s.end ?? max(start, lastTime)),
            attributes: attributes,
            events: s.events.map { (OTLPTrace.nanos(zero, $0.time), $0.name, $0.attributes) },
            // A cancel is an error status too, described as `Graph.trace(with:)` does.
            error: s.failed ? .some(s.message) : s.cancelled ? .some("cancelled") : nil, service: service)
    }

    /// An attach program row's name without its ` (pid N)`.
    static func programName(_ row: String) -> String {
        guard row.hasSuffix(")") else { return row }
        var i = row.endIndex
        while i > row.startIndex {
            i = row.index(before: i)
            if row[i] == " ", row[i...].hasPrefix(" (pid ") { return String(row[..<i]) }
        }
        return row
    }

    /// `success`, `failure` or `cancellation` (the CI/CD conventions' result values).
    func result(_ s: OTLPTrace.Span) -> String {
        s.cancelled ? "cancellation" : s.failed ? "failure" : "success"
    }

    /// The root's result, a failure also when a command failed that was not allowed to (the
    /// run's exit status says the same).
    func pipelineResult(_ root: OTLPTrace.Span, _ fold: OTLPTrace.SpanFold) -> String {
        if root.cancelled || root.failed { return result(root) }
        let failedCommand = fold.spans.contains { s in
            s.kind == NodeKind.command && s.failed && !s.attributes.contains { $0.key == "taskview.allowFailure" }
        }
        return failedCommand ? "failure" : "success"
    }

    /// A command's exit code: 0 when it succeeded, N when it failed with `exit status N`.
    static func exitCode(_ s: OTLPTrace.Span) -> Int? {
        guard s.end != nil, !s.cancelled else { return nil }
        if !s.failed { return 0 }
        guard let m = s.message, m.hasPrefix("exit status ") else { return nil }
        return Int(m.dropFirst(12).prefix { $0.isNumber })
    }
}

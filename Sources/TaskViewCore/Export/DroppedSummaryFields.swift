import TaskGraph

extension ChildSummary {
    /// What retention dropped under a node, as the exports carry it on the node's span
    /// (Chrome trace `args.dropped.*`, OTLP attributes `taskgraph.dropped.*`): the counts,
    /// then the durations in seconds when known.
    package static func exportFields(_ s: ChildSummary) -> [(key: String, value: OTLPValue)] {
        var out: [(key: String, value: OTLPValue)] = [
            ("succeeded", .int(s.succeeded)), ("failed", .int(s.failed)), ("cancelled", .int(s.cancelled)),
        ]
        if let p50 = s.p50 { out.append(("p50", .double(p50))) }
        if let p95 = s.p95 { out.append(("p95", .double(p95))) }
        if let max = s.max { out.append(("max", .double(max))) }
        return out
    }
}

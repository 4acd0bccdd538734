/// W1-W5: the same jobs on GraphTask (plain and with the recorder), Swift Concurrency,
/// OpenCombine and the minimal future.
enum LibrarySuite {
    static func workloads(_ config: Config) -> [Workload] {
        var all: [Workload] = []
        if config.wants("W1") {
            all.append(
                Workload(
                    id: "W1", title: "create + execute + complete + 1 handler, per task",
                    n: config.size(100_000), measure: .perItem, target: .below(1e-6, "< 1 µs"),
                    runs: config.rounds(full: 7),
                    cases: cases(
                        gt: GT.w1, swift: SwiftConcurrencySubject.w1,
                        combine: OpenCombineSubject.w1, mini: MiniFutureSubject.w1,
                        // GraphTask's other rows run next to the recorder's, before the
                        // peers: on the heap the peers leave, every GraphTask row was
                        // slower, so an order of plain, recorder, peers, tracer compared
                        // the tracer on a worse heap than the recorder.
                        observed: [
                            // A no-op `observe {}`: the event path alone (issue 11: <= 1.2x plain).
                            Case(subject: "GraphTask + no-op observer", kind: .peer) { GT.w1Observed($0) ?? .nan }
                        ])
                        // The async body (a Swift task per GraphTask), beside Swift's `Task {}`.
                        + [Case(subject: "GraphTask.async body", kind: .peer) { GT.w1Async($0) ?? .nan }]))
        }
        if config.wants("W2") {
            all.append(
                Workload(
                    id: "W2", title: "chain of map/then links (build + run + release), per link",
                    n: config.size(100_000), measure: .perItem, target: .below(1e-6, "< 1 µs"),
                    runs: config.rounds(full: 7),
                    cases: cases(
                        gt: GT.w2, swift: SwiftConcurrencySubject.w2,
                        combine: OpenCombineSubject.w2, mini: MiniFutureSubject.w2)))
        }
        if config.wants("W3") {
            all.append(
                Workload(
                    id: "W3", title: "fan-in: concurrent of N subtasks, per subtask",
                    n: config.size(100_000), measure: .perItem, target: .below(1e-6, "< 1 µs"),
                    runs: config.rounds(full: 7),
                    cases: cases(
                        gt: GT.w3, swift: SwiftConcurrencySubject.w3,
                        combine: OpenCombineSubject.w3, mini: MiniFutureSubject.w3)))
        }
        if config.wants("W4") {
            all.append(
                Workload(
                    id: "W4", title: "heap bytes per unsettled task with 1 handler",
                    n: config.size(1_000_000), measure: .bytesPerItem, target: .below(400, "< 400 B"),
                    runs: config.runs ?? 1, warmUp: false, // heap bytes are the same run to run
                    cases: cases(
                        gt: GT.w4, swift: SwiftConcurrencySubject.w4,
                        combine: OpenCombineSubject.w4, mini: MiniFutureSubject.w4, traced: false)))
        }
        if config.wants("W5") {
            all.append(
                Workload(
                    id: "W5", title: "cancel a 100 × 100 tree of executing tasks",
                    n: 100, measure: .total, target: .below(5e-3, "< 5 ms"),
                    runs: config.rounds(full: 7),
                    cases: cases(
                        gt: GT.w5, swift: SwiftConcurrencySubject.w5,
                        combine: OpenCombineSubject.w5, mini: MiniFutureSubject.w5)))
        }
        return all
    }

    /// GraphTask plain and recorded, then (`traced`) with TaskGraphTracing (issue 10: within
    /// 1.5x of plain, and slowing the graph no more than the recorder), then `observed`,
    /// then the peers.
    private static func cases(
        gt: @escaping (Int, Watch) -> Double?, swift: @escaping (Int) -> Double,
        combine: @escaping (Int) -> Double, mini: @escaping (Int) -> Double,
        traced: Bool = true, observed: [Case] = []
    ) -> [Case] {
        var rows = [
            Case(subject: "GraphTask", kind: .graphTask) { gt($0, .none) },
            Case(subject: GT.recordedLabel, kind: .graphTaskRecorded) { gt($0, .recorder) },
        ]
        if traced {
            rows += [
                // Spans to a minimal tracer.
                Case(subject: GT.tracedLabel, kind: .graphTaskRecorded) { gt($0, .tracer) },
                // The same with a tracer that does nothing: TaskGraphTracing's side alone.
                Case(subject: GT.noOpTracedLabel, kind: .graphTaskRecorded) { gt($0, .noOpTracer) },
            ]
        }
        return rows + observed + [
            Case(subject: "Swift Concurrency", kind: .peer, run: swift),
            Case(subject: "OpenCombine 0.14", kind: .peer, run: combine),
            Case(subject: "minimal locked future (floor)", kind: .floor, run: mini),
        ]
    }
}

/// What watches a GraphTask row's graph: nothing, the log recorder, or TaskGraphTracing
/// (`TracedSubject`) with a counting tracer or one that does nothing.
enum Watch { case none, recorder, tracer, noOpTracer }

#if !NO_GRAPHTASK
    /// GraphTask's workloads, or n/a while the library lacks GraphTask.
    enum GT {
        static let recordedLabel = Recorder.label
        static let tracedLabel = TracedSubject.label
        static let noOpTracedLabel = TracedSubject.noOpLabel
        static func w1(_ n: Int, _ watch: Watch) -> Double? { GraphTaskSubject.w1(n: n, watch) }
        static func w1Async(_ n: Int) -> Double? { GraphTaskSubject.w1Async(n: n) }
        static func w1Observed(_ n: Int) -> Double? { GraphTaskSubject.w1Observed(n: n) }
        static func w2(_ n: Int, _ watch: Watch) -> Double? { GraphTaskSubject.w2(n: n, watch) }
        static func w3(_ n: Int, _ watch: Watch) -> Double? { GraphTaskSubject.w3(n: n, watch) }
        static func w4(_ n: Int, _ watch: Watch) -> Double? { GraphTaskSubject.w4(n: n, watch) }
        static func w5(_ n: Int, _ watch: Watch) -> Double? { GraphTaskSubject.w5(width: n, watch) }
        static func chain(depth: Int) -> Int { GraphTaskSubject.chain(depth: depth) }
    }
#else
    enum GT {
        static let recordedLabel = "GraphTask + recorder"
        static let tracedLabel = "GraphTask + tracer"
        static let noOpTracedLabel = "GraphTask + no-op tracer"
        static func w1(_ n: Int, _ watch: Watch) -> Double? { nil }
        static func w1Async(_ n: Int) -> Double? { nil }
        static func w1Observed(_ n: Int) -> Double? { nil }
        static func w2(_ n: Int, _ watch: Watch) -> Double? { nil }
        static func w3(_ n: Int, _ watch: Watch) -> Double? { nil }
        static func w4(_ n: Int, _ watch: Watch) -> Double? { nil }
        static func w5(_ n: Int, _ watch: Watch) -> Double? { nil }
        static func chain(depth: Int) -> Int { -1 }
    }
#endif

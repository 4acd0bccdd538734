/// Dashboard and log workloads, on TaskViewCore's public entry points.
///
/// TODO(issue 5): the dashboard model/renderer and the log writer/reader/seek are being
/// written in parallel; until their public API is in main these print
/// "n/a (not yet available)" instead of figures.
enum ViewSuite {
    static let unavailable = "n/a (not yet available)"

    static func workloads(_ config: Config) -> [Workload] {
        guard config.wants("view") else { return [] }
        func pending(_ id: String, _ title: String, _ n: Int, _ m: Measure, _ target: Target) -> Workload {
            Workload(id: id, title: title, n: n, measure: m, target: target, runs: 1, warmUp: false,
                     cases: [Case(subject: "taskview", kind: .taskView, run: { _ in nil },
                                  unavailable: unavailable)])
        }
        return [
            pending("V1", "render a frame of a 100,000-node graph at 200×60", 100_000, .total,
                    .below(1e-3, "< 1 ms")),
            pending("V2", "absorb 1,000,000 graph events into the dashboard model", 1_000_000,
                    .rate(unit: "events"), .atLeast(perSecond: 1e6, "≥ 1 M events/s")),
            pending("V3", "write 1,000,000 events to a log", 1_000_000, .rate(unit: "events"),
                    .atLeast(perSecond: 1e6, "≥ 1 M events/s")),
            pending("V4", "load a 1,000,000-event log", 1_000_000, .total, .below(1, "< 1 s")),
            pending("V5", "seek in a 1,000,000-event log", 1_000_000, .total, .below(0.05, "< 50 ms")),
        ]
    }
}

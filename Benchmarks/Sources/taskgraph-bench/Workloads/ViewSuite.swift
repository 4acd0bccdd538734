import Glibc
import TaskGraph
import TaskViewCore
import TaskViewIO

/// Dashboard and log workloads on TaskViewCore's and TaskGraph's public entry points:
/// drawing a frame, absorbing events into the dashboard model, writing a replay log
/// (`GraphRecorder`), loading one (`LogReader`) and seeking in it (`ReplaySource`).
/// There is no peer for these: each row is checked against its target only.
///
/// Each workload runs in a child process (`--view-child`) that builds its own fixture and
/// does all the rounds, killed after `timeLimit` seconds: a workload that scales badly
/// shows as "timeout" and MISS instead of stretching the suite.
enum ViewSuite {
    struct Spec {
        let id: String
        let title: (ViewFixture) -> String
        let measure: Measure
        let target: Target
        let body: (ViewFixture) -> Double
    }

    static func timeLimit(quick: Bool) -> Double { quick ? 6 : 15 }

    static func fixture(quick: Bool) -> ViewFixture {
        ViewFixture(nodes: quick ? 10_000 : 100_000, events: quick ? 100_000 : 1_000_000)
    }

    static func specs(quick: Bool) -> [Spec] {
        [
            Spec(
                id: "V1", title: { "render one frame (model → cells) of a \($0.nodes.formatted)-node graph at 200×60" },
                measure: .total, target: .below(1e-3, "< 1 ms")
            ) { $0.renderFrames(count: quick ? 20 : 100) },
            Spec(
                id: "V2", title: { "absorb \($0.eventCount.formatted) graph events into the dashboard model" },
                measure: .rate(unit: "events"), target: .atLeast(perSecond: 1e6, "≥ 1 M events/s")
            ) { $0.absorb() },
            Spec(
                id: "V3", title: { "write \($0.eventCount.formatted) events to a replay log (GraphRecorder)" },
                measure: .rate(unit: "events"), target: .atLeast(perSecond: 1e6, "≥ 1 M events/s")
            ) { $0.write() },
            Spec(
                id: "V4", title: { "load a \($0.eventCount.formatted)-event log (LogReader.load)" },
                measure: .total, target: .below(1, "< 1 s")
            ) { $0.load() },
            Spec(
                id: "V5", title: { _ in "seek in it (worst of jumps to 90, 10, 50, 30, 70 %)" },
                measure: .total, target: .below(0.05, "< 50 ms")
            ) { $0.seek() },
            Spec(
                id: "V6", title: { "export a \($0.eventCount.formatted)-event log as OTLP/JSON (load + export)" },
                measure: .total, target: .below(2, "< 2 s")
            ) { $0.exportOTLP() },
        ]
    }

    /// The parent side: one workload per spec, each run by a child process.
    static func workloads(_ config: Config, budget: Double) -> [Workload] {
        guard config.wants("view") else { return [] }
        let sizes = fixture(quick: config.quick) // only for titles; builds nothing
        let rounds = config.rounds(full: 7)
        let limit = timeLimit(quick: config.quick)
        return specs(quick: config.quick).map { spec in
            var w = Workload(
                id: spec.id, title: spec.title(sizes), n: 1, measure: spec.measure,
                target: spec.target, runs: rounds, warmUp: false,
                cases: [Case(subject: "taskview", kind: .taskView) { _ in nil }])
            w.timeoutNote = "timeout (> \(Int(limit)) s)"
            w.isolated = {
                let out = Recorder.temporaryPath() + ".values"
                defer { unlink(out) }
                let args = [
                    "--view-child", spec.id, config.quick ? "quick" : "full", String(rounds),
                    String(budget), out,
                ]
                let (outcome, _) = runSelf(args, timeout: limit)
                guard outcome.succeeded, let text = Machine.readFile(out) else { return nil }
                let values = text.split(separator: " ").compactMap { Double($0) }
                return values.isEmpty ? nil : values
            }
            return w
        }
    }

    /// The child side: builds the fixture, runs `rounds` rounds (fewer once `budget` seconds
    /// are spent), writes the values to `out`, exits 0.
    static func child(id: String, quick: Bool, rounds: Int, budget: Double, out: String) -> Never {
        guard let spec = specs(quick: quick).first(where: { $0.id == id }) else {
            printError("unknown view workload \(id)\n")
            exit(2)
        }
        let fixture = fixture(quick: quick)
        var values: [Double] = []
        let start = now()
        for _ in 0..<max(1, rounds) where values.isEmpty || now() - start < budget {
            values.append(spec.body(fixture))
        }
        guard let f = fopen(out, "w") else { exit(1) }
        fputs(values.map { String($0) }.joined(separator: " "), f)
        fclose(f)
        exit(0)
    }
}

/// The events, the written log and the loaded log the view workloads share; built once,
/// outside the timed parts. The log file is deleted when the fixture goes away.
final class ViewFixture {
    let nodes: Int
    private let total: Int
    private lazy var events: [GraphEvent] = EventFactory.events(nodes: nodes, total: total)
    private lazy var frameModel: DashboardModel = makeFrameModel()
    private lazy var path = Recorder.temporaryPath()
    private var written = false
    private var loaded: ReplayLog?

    init(nodes: Int, events: Int) {
        self.nodes = nodes
        self.total = events
    }

    deinit { if written { unlink(path) } }

    var eventCount: Int { total }

    /// A model of a graph in the middle of its run (every node executing, with progress),
    /// built from a snapshot (`GraphReplica` folds the events) so that drawing is measured
    /// apart from absorbing.
    private func makeFrameModel() -> DashboardModel {
        var replica = GraphReplica()
        for e in EventFactory.events(nodes: nodes, progressPerLeaf: 2, settle: false) { replica.apply(e) }
        var model = DashboardModel(title: "taskgraph-bench")
        model.tree = TreeModel(snapshot: replica.snapshot)
        // One node in 50 warned about (issue 43: warnings cost the frame nothing users feel);
        // groups with running children draw their why-lines.
        var seq = replica.snapshot.sequence
        for id in stride(from: 1, to: nodes, by: 50) {
            seq += 1
            let warn = GraphChange.warn(id: NodeID(id), rule: WarningRule.slow, text: "slow: 3.4× its usual 12s")
            model.absorb(GraphEvent(sequence: seq, time: 1, change: warn))
        }
        model.refreshDerived()
        return model
    }
    /// Seconds per frame, over `count` frames with the selection jumping through the tree
    /// (each frame also settles the top row, as the dashboard does when a person moves).
    func renderFrames(count: Int) -> Double {
        var model = frameModel
        let renderer = Renderer(ascii: false)
        var cells = 0
        let t = seconds {
            for k in 0..<count {
                model.view.selection = RowIndex((k * 7919) % nodes)
                let frame = renderer.render(model, width: 200, height: 60)
                model.view.top = frame.top
                cells &+= frame.grid.cells.count
            }
        }
        check(cells == count * 200 * 60, "V1 frame size")
        return t / Double(count)
    }

    /// Seconds per event absorbed into a fresh model.
    func absorb() -> Double {
        let events = self.events
        var model = DashboardModel(title: "taskgraph-bench")
        let t = seconds {
            for e in events { model.absorb(e) }
        }
        check(model.tree.liveCount == nodes, "V2 absorbed \(model.tree.liveCount) nodes, expected \(nodes)")
        return t / Double(events.count)
    }

    /// Seconds per event written, file closed (`finish()`) included.
    func write() -> Double {
        let events = self.events
        let recorder: GraphRecorder
        do {
            recorder = try GraphRecorder(path: path, producer: "taskgraph-bench")
        } catch {
            check(false, "V3 cannot create \(path): \(error)")
            return 0
        }
        let t = seconds {
            for e in events { recorder.record(e) }
            recorder.finish()
        }
        check(recorder.writeError == nil, "V3 write error")
        written = true
        loaded = nil
        return t / Double(events.count)
    }

    private func ensureWritten() {
        if !written { _ = write() }
    }

    /// Seconds to load the whole log.
    func load() -> Double {
        ensureWritten()
        var log: ReplayLog?
        let t = seconds {
            log = try? LogReader.load(path: path)
        }
        check(log?.eventCount == events.count, "V4 loaded \(log?.eventCount ?? -1) events, expected \(events.count)")
        loaded = log
        return t
    }

    /// Seconds to load the log and export it as OTLP/JSON (`taskview export --format otlp-json`
    /// without the file write).
    func exportOTLP() -> Double {
        ensureWritten()
        var bytes = 0
        let t = seconds {
            guard let log = try? LogReader.load(path: path) else { return }
            bytes = OTLPTrace.export(log).count
        }
        check(bytes > 0, "V6 exported nothing")
        return t
    }

    /// Seconds for the slowest of five jumps a person makes in the replay dashboard.
    func seek() -> Double {
        if loaded == nil { _ = load() }
        guard let log = loaded else { return 0 }
        let source = ReplaySource(log: log, title: "taskgraph-bench")
        var model = DashboardModel(title: "taskgraph-bench")
        source.start(model: &model)
        var worst = 0.0
        for fraction in [0.9, 0.1, 0.5, 0.3, 0.7] {
            let target = log.duration * fraction
            worst = max(worst, seconds { source.seek(to: target, model: &model) })
            check(abs(source.time - target) < 1e-9, "V5 seek landed at \(source.time), not \(target)")
        }
        return worst
    }
}

extension Int {
    /// 1,000,000 style.
    var formatted: String {
        let digits = Array(String(self))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}

import Glibc
import TaskGraph
import TaskViewCore

/// Dashboard and log workloads on TaskViewCore's and TaskGraph's public entry points:
/// drawing a frame, absorbing events into the dashboard model, writing a replay log
/// (`GraphRecorder`), loading one (`LogReader`) and seeking in it (`ReplaySource`).
/// There is no peer for these: each row is checked against its target only.
enum ViewSuite {
    static func workloads(_ config: Config) -> [Workload] {
        guard config.wants("view") else { return [] }
        let fixture = ViewFixture(nodes: config.size(100_000), events: config.size(1_000_000))
        let nodes = fixture.nodes.formatted, events = fixture.eventCount.formatted
        let runs = config.rounds(full: 7)
        func one(_ id: String, _ title: String, _ m: Measure, _ target: Target, runs: Int = runs,
                 _ run: @escaping () -> Double) -> Workload {
            Workload(id: id, title: title, n: 1, measure: m, target: target, runs: runs, warmUp: false,
                     cases: [Case(subject: "taskview", kind: .taskView) { _ in run() }])
        }
        return [
            one("V1", "render one frame (model → cells) of a \(nodes)-node graph at 200×60",
                .total, .below(1e-3, "< 1 ms")) { fixture.renderFrames(count: config.quick ? 20 : 100) },
            one("V2", "absorb \(events) graph events into the dashboard model", .rate(unit: "events"),
                .atLeast(perSecond: 1e6, "≥ 1 M events/s")) { fixture.absorb() },
            one("V3", "write \(events) events to a replay log (GraphRecorder)", .rate(unit: "events"),
                .atLeast(perSecond: 1e6, "≥ 1 M events/s")) { fixture.write() },
            one("V4", "load a \(events)-event log (LogReader.load)", .total, .below(1, "< 1 s")) {
                fixture.load()
            },
            one("V5", "seek in it (worst of jumps to 90, 10, 50, 30, 70 %)", .total,
                .below(0.05, "< 50 ms")) { fixture.seek() },
        ]
    }
}

/// The events, the written log and the loaded log the view workloads share; built once,
/// outside the timed parts. The log file is deleted when the fixture goes away.
final class ViewFixture {
    let nodes: Int
    private let total: Int
    private lazy var events: [GraphEvent] = EventFactory.events(nodes: nodes, total: total)
    private lazy var frameModel: DashboardModel = makeFrameModel()
    private let path = Recorder.temporaryPath()
    private var written = false
    private var loaded: ReplayLog?

    init(nodes: Int, events: Int) {
        self.nodes = nodes
        self.total = events
    }

    deinit { unlink(path) }

    var eventCount: Int { total }

    /// A model of a graph in the middle of its run (every node executing, with progress).
    private func makeFrameModel() -> DashboardModel {
        var model = DashboardModel(title: "taskgraph-bench")
        for e in EventFactory.events(nodes: nodes, progressPerLeaf: 2, settle: false) { model.absorb(e) }
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
                model.view.selection = (k * 7919) % nodes
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

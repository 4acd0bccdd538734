import Foundation
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// The `warn` line of the replay log (docs/log-format.md, "Warnings"): written exactly,
/// read back as the same changes, replayed into the dashboard at the moment, and reported.
@Suite struct WarningLogTests {
    static func recordedLog() throws -> (ReplayLog, [String]) {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let path = temporaryLogPath("warn")
        defer { unlink(path) }
        let recording = try g.record(to: path, producer: "warn")
        let task = GraphTask<Int, Never>(name: "core", graph: g) { _, succeed, _, _ in
            _ = clock.schedule(after: 3) { succeed(1) }
        }
        task.execute()
        clock.advance(by: 1)
        g.warn(task.id, rule: WarningRule.slow, text: "slow: 3.4× its usual 12s")
        clock.advance(by: 1)
        g.warn(task.id, rule: WarningRule.slow, text: nil)
        clock.advance(by: 1)
        recording.cancel()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try LogReader.load(path: path), text.split(separator: "\n").map(String.init))
    }

    @Test func bothEndsAreOneLineEachReadBackExactly() throws {
        let (log, lines) = try Self.recordedLog()
        let warns = lines.filter { $0.contains(#""ev":"warn""#) }
        #expect(warns.count == 2)
        #expect(
            warns.first?.hasSuffix(#""t":1,"ev":"warn","id":0,"rule":"slow","text":"slow: 3.4× its usual 12s"}"#)
                == true)
        #expect(warns.last?.hasSuffix(#""t":2,"ev":"warn","id":0,"rule":"slow","cleared":true}"#) == true)
        let changes = log.events.compactMap { e -> String? in
            guard case .warn(let id, let rule, let text) = e.change else { return nil }
            return "\(id.rawValue) \(rule) \(text ?? "cleared") at \(e.time)"
        }
        #expect(changes == ["0 slow slow: 3.4× its usual 12s at 1.0", "0 slow cleared at 2.0"])
    }

    @Test func replayShowsTheWarningOfTheMomentAndTheReportListsIt() throws {
        let (log, _) = try Self.recordedLog()
        let source = ReplaySource(log: log, title: "replay")
        var m = DashboardModel(title: "replay")
        source.start(model: &m)
        source.seek(to: 1.5, model: &m)
        #expect(m.tree.warningList(0).map(\.text) == ["slow: 3.4× its usual 12s"])
        source.seek(to: 2.5, model: &m)
        #expect(m.tree.warningCount == 0)
        source.seek(to: log.duration, model: &m)
        let report = RunReport(tree: m.tree)
        #expect(report.warningLines == ["Warnings: 1", "  ⚠ 1.000s core: slow: 3.4× its usual 12s"])
    }

    @Test func aWarningBeforeRecordingIsInTheFirstSnapshotForLateViewers() throws {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let task = GraphTask<Int, Never>(name: "core", graph: g) { _, succeed, _, _ in
            _ = clock.schedule(after: 3) { succeed(1) }
        }
        task.execute()
        g.warn(task.id, rule: WarningRule.silent, text: "no output for 2m")
        #expect(g.snapshot().warnings == [task.id: [WarningRule.silent: "no output for 2m"]])
        let path = temporaryLogPath("warnsnap")
        defer { unlink(path) }
        let recording = try g.record(to: path, producer: "warn")
        clock.advance(by: 3)
        recording.cancel()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines[1].contains(#""warn":{"silent":"no output for 2m"}"#))
        let log = try LogReader.load(path: path)
        let source = ReplaySource(log: log, title: "replay")
        var m = DashboardModel(title: "replay")
        source.start(model: &m)
        source.seek(to: 1, model: &m)
        #expect(m.tree.warningList(0).map(\.text) == ["no output for 2m"])
        #expect(TreeModel(snapshot: log.snapshot(afterEvents: 0)).warningCount == 1)
    }

    @Test func aWarnLineWithoutTextOrClearedIsABadLine() throws {
        let path = temporaryLogPath("badwarn")
        defer { unlink(path) }
        let text = """
            {"format":"taskgraph-log","version":1,"created":"2026-01-31T12:00:00Z","producer":"t"}
            {"seq":1,"t":0,"ev":"snapshot","part":1,"parts":1,"nodes":[]}
            {"seq":2,"t":0,"ev":"add","id":0,"kind":"task","name":"a","weight":1}
            {"seq":3,"t":1,"ev":"warn","id":0,"rule":"slow"}

            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: LogLoadError.self) { try LogReader.load(path: path) }
        do {
            _ = try LogReader.load(path: path)
        } catch let e as LogLoadError {
            #expect(e.line == 4)
            #expect(e.message == #"missing "text" (or "cleared":true)"#)
        }
    }
}

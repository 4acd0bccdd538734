import Foundation
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// What a node costs, through the log: the `usage` line, read back, kept by snapshots and
/// replayed at a time before and after it (docs/log-format.md "Usage").
@Suite struct UsageLogTests {
    /// Node 0 executes from t=0; usage 0.5 s / 1 MiB at t=1, 1.25 s / 2 MiB at t=2; it
    /// completes at t=3.
    static func recordedLog() throws -> (ReplayLog, [String]) {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let path = temporaryLogPath("usage")
        defer { unlink(path) }
        let recording = try g.record(to: path, producer: "usage")
        let task = GraphTask<Int, Never>(name: "build", graph: g) { _, succeed, _, _ in
            _ = clock.schedule(after: 3) { succeed(1) }
        }
        task.execute()
        clock.advance(by: 1)
        g.reportUsage(task.id, NodeUsage(cpu: 0.5, rss: 1 << 20))
        clock.advance(by: 1)
        g.reportUsage(task.id, NodeUsage(cpu: 1.25, rss: 2 << 20))
        g.reportUsage(NodeID(99), NodeUsage(cpu: 1, rss: 1)) // no such node: nothing
        clock.advance(by: 1)
        recording.cancel()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try LogReader.load(path: path), text.split(separator: "\n").map(String.init))
    }

    @Test func usageIsOneLineAReportReadBackAndKeptBySnapshots() throws {
        let (log, lines) = try Self.recordedLog()
        let usage = lines.filter { $0.contains(#""ev":"usage""#) }
        #expect(usage.count == 2)
        #expect(usage.first?.hasSuffix(#""t":1,"ev":"usage","id":0,"cpu":0.5,"rss":1048576}"#) == true)
        #expect(usage.last?.hasSuffix(#""t":2,"ev":"usage","id":0,"cpu":1.25,"rss":2097152}"#) == true)
        let read = log.events.compactMap { e -> String? in
            if case .usage(let id, let u) = e.change { return "\(id.rawValue) \(u.cpu) \(u.rss) at \(e.time)" }
            return nil
        }
        #expect(read == ["0 0.5 1048576 at 1.0", "0 1.25 2097152 at 2.0"])
        #expect(lines.contains { $0.contains(#""ev":"snapshot""#) && $0.contains(#""cpu":1.25,"rss":2097152"#) })
        #expect(log.finalModel.nodes.first { $0.id == 0 }?.usage == NodeUsage(cpu: 1.25, rss: 2 << 20))
    }

    @Test func replayShowsTheUsageOfTheMomentSeekingBothWays() throws {
        let (log, _) = try Self.recordedLog()
        let source = ReplaySource(log: log, title: "replay")
        var m = DashboardModel(title: "replay")
        source.start(model: &m)
        source.seek(to: 0.5, model: &m)
        #expect(m.tree.usages[0] == nil)
        source.seek(to: 2.5, model: &m)
        #expect(m.tree.usages[0]?.usage == NodeUsage(cpu: 1.25, rss: 2 << 20))
        source.seek(to: 1.5, model: &m)
        #expect(m.tree.usages[0]?.usage == NodeUsage(cpu: 0.5, rss: 1 << 20))
        // Rebuilt from the model after the events up to t=2 (a seek back, a late viewer).
        let rebuilt = log.rebuildEvents(afterEvents: log.eventCount(atTime: 2))
        #expect(rebuilt.contains { $0.change == .usage(id: NodeID(0), usage: NodeUsage(cpu: 1.25, rss: 2 << 20)) })
    }

    @Test func aUsageLineWithoutItsFieldsOrOutOfRangeIsABadLine() throws {
        let header = #"{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"t"}"#
        let add = #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"command","name":"c","weight":1}"#
        for (bad, why) in [
            (#"{"seq":2,"t":1,"ev":"usage","id":0,"cpu":0.5}"#, #"missing "rss""#),
            (#"{"seq":2,"t":1,"ev":"usage","id":0,"cpu":-1,"rss":5}"#, "cpu -1.0"),
            (#"{"seq":2,"t":1,"ev":"usage","id":3,"cpu":1,"rss":5}"#, "node 3 does not exist"),
        ] {
            let path = temporaryLogPath("usage-bad")
            defer { unlink(path) }
            try (header + "\n" + add + "\n" + bad + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: (any Error).self) { try LogReader.load(path: path) }
            do { _ = try LogReader.load(path: path) } catch {
                #expect("\(error)".contains(why), "\(error)")
                #expect("\(error)".contains("line 3:"), "names the line: \(error)")
            }
        }
    }
}

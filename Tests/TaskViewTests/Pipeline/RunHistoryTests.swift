import Foundation
import TaskGraph
import TestSupport
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// ETA from the history of earlier runs of the same scenario file (docs/taskview.md, "Run
/// history"), on virtual-clock runs with known durations.
@Suite struct RunHistoryTests {
    static let pipeline = """
        {"kind": "sequential", "name": "ci", "children": [
          {"kind": "concurrent", "name": "build", "children": [
            {"kind": "work", "name": "core", "duration": 2},
            {"kind": "work", "name": "docs", "duration": 3}
          ]},
          {"kind": "work", "name": "test", "duration": 1}
        ]}
        """

    /// A directory with `p.json` and `logs/`, removed by the caller.
    func workspace() throws -> String {
        let dir = TemporaryDirectory("taskview-history").path
        try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
        try Self.pipeline.write(toFile: dir + "/p.json", atomically: true, encoding: .utf8)
        return dir
    }

    /// Runs `scenario` to its end on its virtual clock, recorded to `path`; the history
    /// entry it leaves.
    func run(_ scenario: Scenario, recordTo path: String, start: Double) throws -> HistoryEntry {
        let session = try ScenarioSession(scenario: scenario, seed: 0, recordTo: path)
        var final: TreeModel?
        let outcome = HeadlessRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID, finished: { final = $0 },
            print: { _ in }, start: { session.start() })
        session.finishRecording()
        let tree = try #require(final)
        return HistoryEntry(
            tree: tree, root: session.rootID.rawValue, run: String(path.split(separator: "/").last!), start: start,
            status: Int(outcome.exitStatus), keys: DefinitionKey.keys(scenario))
    }

    @Test func mediansOfEarlierRunsOfTheSameFileFromItsHistoryFile() throws {
        let dir = try workspace()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = try ScenarioLoader.file(dir + "/p.json")
        #expect(scenario.file == dir + "/p.json")
        let file = HistoryFile(scenarioFile: dir + "/p.json", directory: dir + "/logs")
        try file.append(run(scenario, recordTo: dir + "/logs/a.jsonl", start: 1))
        try file.append(run(scenario, recordTo: dir + "/logs/b.jsonl", start: 2))
        // A run that took longer: the median of three.
        var slow = try run(scenario, recordTo: dir + "/logs/c.jsonl", start: 3)
        for i in slow.nodes.indices { slow.nodes[i].seconds = slow.nodes[i].seconds.map { $0 * 10 } }
        try file.append(slow)
        // Another file's run has a history of its own.
        var other = scenario
        other.file = dir + "/other.json"
        try HistoryFile(scenarioFile: dir + "/other.json", directory: dir + "/logs").append(
            run(other, recordTo: dir + "/logs/d.jsonl", start: 4))
        var notices: [String] = []
        let history = RunHistory.load(file: dir + "/p.json", directory: dir + "/logs") { notices.append($0) }
        #expect(history.runCount == 3)
        #expect(history.expected["ci/build/core"] == 2)
        #expect(history.expected["ci/build/docs"] == 3)
        #expect(history.expected["ci/test"] == 1)
        #expect(history.expected["ci"] == 4)
        #expect(notices.isEmpty)
        #expect(file.path.hasPrefix(dir + "/logs/history/") && file.path.hasSuffix(".jsonl"))
    }

    @Test func onlyTheNewestRunsCountAndOnlyWhereANodeSucceeded() {
        func entry(_ seconds: Double, _ outcome: String = "succeeded") -> HistoryEntry {
            HistoryEntry(
                run: nil, start: 0, seconds: seconds, status: 0,
                nodes: [.init(path: "ci/a", outcome: outcome, seconds: seconds)])
        }
        // 12 runs: the two oldest (100 s) are past the last 10; failed runs do not count.
        let entries = [entry(100), entry(100)] + (1...8).map { entry(Double($0)) } + [entry(50, "failed"), entry(9)]
        let history = RunHistory(entries: entries)
        #expect(history.runCount == 10)
        #expect(history.expected == ["ci/a": 5])
    }

    @Test func theLogsOfEarlierRunsAreNotRead() throws {
        let dir = try workspace()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = try ScenarioLoader.file(dir + "/p.json")
        // A log of the same file, and a 50 MB one (a header, then padding): no history file
        // yet, so no history, and nothing of the logs is read (no notice about the big one).
        _ = try run(scenario, recordTo: dir + "/logs/a.jsonl", start: 1)
        let header = try String(contentsOfFile: dir + "/logs/a.jsonl", encoding: .utf8).split(separator: "\n")[0]
        let big = dir + "/logs/big.jsonl"
        try (header + "\n{\"seq\":1,").write(toFile: big, atomically: true, encoding: .utf8)
        #expect(truncate(big, 50_000_000) == 0)
        var notices: [String] = []
        let started = ContinuousClock.now
        let history = RunHistory.load(file: dir + "/p.json", directory: dir + "/logs") { notices.append($0) }
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(history.runCount == 0)
        #expect(notices.isEmpty)
    }

    @Test func headlessLinesCarryTheRunsETA() throws {
        let history = RunHistory(
            expected: ["ci/build/core": 2, "ci/build/docs": 3, "ci/test": 1], runCount: 1)
        let scenario = try ScenarioDecoder.decode(Array(Self.pipeline.utf8), file: "p.json", name: "p")
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let root = ScenarioBuilder(graph: graph, seed: 0).build(scenario)
        var lines: [String] = []
        _ = HeadlessRunner.run(
            graph: graph, clock: clock, root: root.id, history: history, print: { lines.append($0) },
            start: { root.execute() })
        #expect(lines.contains("[0.000] #4 ci: executing  (ETA 4.0s)"))
        #expect(lines.contains("[2.000] #0 core: succeeded  (ETA 2.0s)"))
        #expect(lines.contains("[3.000] #3 test: executing  (ETA 1.0s)"))
        #expect(lines.contains("[4.000] #4 ci: succeeded"))
    }

    @Test func timeBasedProgressAndNodesWithoutHistory() {
        var tree = TreeModel()
        func add(_ id: Int, _ kind: String, _ name: String, parent: Int?, index: Int?) -> GraphEvent {
            GraphEvent(
                sequence: UInt64(id + 1), time: 0,
                change: .added(
                    id: NodeID(id), kind: kind, name: name, weight: 1, parent: parent.map { NodeID($0) },
                    index: index))
        }
        tree.absorb([
            add(0, "sequential", "ci", parent: nil, index: nil),
            add(1, "task", "a", parent: 0, index: 0),
            add(2, "task", "b", parent: 0, index: 1),
            GraphEvent(
                sequence: 4, time: 0,
                change: .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil)),
            GraphEvent(
                sequence: 5, time: 0,
                change: .stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil)),
        ])
        let history = RunHistory(expected: ["ci/a": 10], runCount: 1)
        #expect(history.timeProgress(1, in: tree, now: 4)?.fraction == 0.4)
        #expect(history.timeProgress(1, in: tree, now: 4)?.left == 6)
        #expect(history.timeProgress(1, in: tree, now: 20)?.fraction == 0.99)
        #expect(history.timeProgress(1, in: tree, now: 20)?.left == 1)
        #expect(history.timeProgress(2, in: tree, now: 4) == nil) // not running, no history
        let left = history.remaining(in: tree, now: 4)
        #expect(left?.seconds == 6)
        #expect(left?.unknown == 1)
    }
    @Test func aQueuedCommandShowsNoTimeProgressUntilItStarts() {
        var tree = TreeModel()
        let events: [GraphChange] = [
            .added(id: NodeID(0), kind: "concurrent", name: "ci", weight: 1, parent: nil, index: nil),
            .added(id: NodeID(1), kind: "command", name: "build", weight: 1, parent: NodeID(0), index: 0),
            .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil),
            .stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil),
            .progress(id: NodeID(1), progress: TaskProgress(0, info: "queued")),
        ]
        for (k, e) in events.enumerated() { tree.absorb(GraphEvent(sequence: UInt64(k + 1), time: 0, change: e)) }
        let history = RunHistory(expected: ["ci/build": 2], runCount: 1)
        // Waiting for a slot: no time-based progress, and the ETA counts all of its 2 s.
        #expect(history.timeProgress(1, in: tree, now: 1.5) == nil)
        #expect(history.remaining(in: tree, now: 1.5)?.seconds == 2)
        var m = DashboardModel(title: "ci")
        m.tree = tree
        m.history = history
        m.clockNow = 1.5
        let queued = frame(&m, 120, 6).first { $0.contains("* build") } ?? ""
        #expect(queued.contains("waiting for a slot"), "\(queued)")
        #expect(!queued.contains("left") && !queued.contains("75%"), "\(queued)")
        // It gets a slot at 1.5 s (progress 0, no info): elapsed counts from there.
        tree.absorb(GraphEvent(sequence: 6, time: 1.5, change: .progress(id: NodeID(1), progress: TaskProgress(0))))
        #expect(history.timeProgress(1, in: tree, now: 2)?.fraction == 0.25)
        #expect(history.timeProgress(1, in: tree, now: 2)?.left == 1.5)
        #expect(history.remaining(in: tree, now: 2)?.seconds == 1.5)
    }
}

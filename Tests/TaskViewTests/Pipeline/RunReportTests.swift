import Synchronization
import TaskGraph
import TestSupport
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// The report after a run (docs/taskview.md, "taskview report"), on runs with known durations.
@Suite struct RunReportTests {
    /// Runs a scenario headless on a virtual clock; returns the printed lines and the tree.
    func run(_ json: String) throws -> [String] {
        let scenario = try ScenarioDecoder.decode(Array(json.utf8), file: "s.json", name: "s")
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let root = ScenarioBuilder(graph: graph, seed: 1).build(scenario)
        var lines: [String] = []
        _ = HeadlessRunner.run(
            graph: graph, clock: clock, root: root.id, print: { lines.append($0) }, start: { root.execute() })
        return lines
    }

    static let pipeline = """
        {"kind": "sequential", "name": "ci", "children": [
          {"kind": "concurrent", "name": "build", "children": [
            {"kind": "work", "name": "core", "duration": 2},
            {"kind": "work", "name": "docs", "duration": 3},
            {"kind": "work", "name": "lint", "duration": 0.5}
          ]},
          {"kind": "work", "name": "test", "duration": 1.5, "fail": true, "message": "3 tests failed"},
          {"kind": "work", "name": "package", "duration": 1}
        ]}
        """

    @Test func firstFailureCriticalPathAndSlowest() throws {
        let lines = try run(Self.pipeline)
        let report = Array(lines.drop { !$0.hasPrefix("First failure") })
        #expect(
            report == [
                "First failure: test at 4.500s: 3 tests failed",
                "Critical path (4.500s of 4.500s):",
                "  docs  3.000s",
                "  test  1.500s",
                "Slowest:",
                "  docs  3.000s",
                "  core  2.000s",
                "  test  1.500s",
                "  lint  0.500s",
            ])
    }

    /// The critical path, step by step as defined: from the step that ended last, each
    /// time the unused step that ended last by the current one's start (1 ms slack).
    static func stepByStep(_ leaves: [RunReport.Step], runStart: Double) -> [RunReport.Step] {
        let later = { (a: RunReport.Step, b: RunReport.Step) in
            (a.start + a.duration, b.id) < (b.start + b.duration, a.id)
        }
        guard var current = leaves.max(by: later) else { return [] }
        var path = [current]
        var used: Set<Int> = [current.id]
        while current.start - runStart > 1e-3 {
            let before = leaves.filter { !used.contains($0.id) && $0.start + $0.duration <= current.start + 1e-3 }
            guard let previous = before.max(by: later) else { break }
            path.append(previous)
            used.insert(previous.id)
            current = previous
        }
        return path.reversed()
    }

    @Test func theCriticalPathIsTheStepByStepOneOnRandomSteps() {
        var rng = SeededGenerator(seed: 42)
        for round in 0..<300 {
            // Few distinct times, so ties and zero durations are common.
            let leaves = (0..<Int(rng.next() % 40)).map { i in
                RunReport.Step(
                    id: (i * 7919) % 101, name: "s\(i)", start: Double(rng.next() % 6) * 0.5,
                    duration: Double(rng.next() % 4) * 0.5)
            }
            let ids = Set(leaves.map(\.id))
            guard ids.count == leaves.count else { continue }
            let runStart = leaves.map(\.start).min() ?? 0
            #expect(
                RunReport.criticalPath(leaves, runStart: runStart) == Self.stepByStep(leaves, runStart: runStart),
                "round \(round)")
        }
    }

    @Test func jsonHasTheSpecifiedKeys() throws {
        let events = Mutex<[GraphEvent]>([])
        let scenario = try ScenarioDecoder.decode(Array(Self.pipeline.utf8), file: "s.json", name: "s")
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let observation = graph.observe { e in events.withLock { $0.append(e) } }
        let root = ScenarioBuilder(graph: graph, seed: 1).build(scenario)
        root.execute()
        clock.runUntilIdle()
        graph.flushObservers()
        observation.cancel()
        var tree = TreeModel()
        tree.absorb(events.withLock { $0 })
        let report = RunReport(tree: tree)
        #expect(report.firstFailure?.name == "test")
        #expect(report.criticalPath.map(\.name) == ["docs", "test"])
        #expect(report.slowest.map(\.name) == ["docs", "core", "test", "lint"])
        #expect(report.counts["succeeded"] == 4)
        #expect(report.counts["failed"] == 2)
        #expect(report.counts["skipped"] == 1)
        let json = report.json
        #expect(json.hasPrefix(#"{"firstFailure":{"id":"#))
        #expect(json.contains(#""criticalPath":[{"#))
        #expect(json.contains(#""slowest":[{"#))
        #expect(
            json.contains(
                #""counts":{"notExecuted":0,"executing":0,"succeeded":4,"failed":2,"cancelled":0,"skipped":1}"#))
    }

    @Test func jsonIsExact() {
        var report = RunReport(tree: TreeModel())
        #expect(
            report.json
                == #"{"firstFailure":null,"fixedByRestart":[],"allowed":[],"flaky":[],"criticalPath":[],"slowest":[],"waits":[],"cpu":[],"memory":[],"counts":{"notExecuted":0,"executing":0,"succeeded":0,"failed":0,"cancelled":0,"skipped":0},"duration":0,"warnings":[]}"#
        )
        report.firstFailure = .init(id: 3, name: "core", message: "exit status 3", time: 1.5, stderr: ["a \"b\"", "c"])
        let docs = RunReport.Step(id: 1, name: "docs", start: 0, duration: 0.25)
        let test = RunReport.Step(id: 2, name: "test", start: 0.25, duration: 2)
        report.criticalPath = [docs, test]
        report.slowest = [test]
        report.counts = ["succeeded": 2, "failed": 1]
        report.duration = 2.25
        report.fixedByRestart = [.init(id: 5, name: "flaky", attempt: 2, message: "timeout", time: 0.5)]
        report.allowed = ["lint"]
        report.flaky = [
            .init(
                id: 5, path: "ci/flaky", name: "flaky", failures: 1, runs: 2, sameRun: true,
                firstFailureOutput: ["E \"x\""])
        ]
        report.warnings = [.init(id: 2, path: "ci/test", rule: "slow", text: "slow: 3.4× its usual 12s", time: 41)]
        #expect(
            report.json
                == #"{"firstFailure":{"id":3,"name":"core","message":"exit status 3","time":1.5,"stderr":["a \"b\"","c"]},"#
                + #""fixedByRestart":[{"id":5,"name":"flaky","attempt":2,"message":"timeout","time":0.5}],"allowed":["lint"],"#
                + #""flaky":[{"path":"ci/flaky","name":"flaky","failures":1,"runs":2,"sameRun":true,"firstFailureOutput":["E \"x\""]}],"#
                + #""criticalPath":[{"id":1,"name":"docs","start":0,"duration":0.25},{"id":2,"name":"test","start":0.25,"duration":2}],"#
                + #""slowest":[{"id":2,"name":"test","start":0.25,"duration":2}],"waits":[],"cpu":[],"memory":[],"#
                + #""counts":{"notExecuted":0,"executing":0,"succeeded":2,"failed":1,"cancelled":0,"skipped":0},"duration":2.25,"#
                + #""warnings":[{"id":2,"path":"ci/test","rule":"slow","text":"slow: 3.4× its usual 12s","time":41}]}"#
        )
    }

    @Test func aRunWithoutFailureSaysNone() throws {
        let lines = try run(#"{"kind": "sequential", "name": "ok", "children": [{"kind": "work", "name": "a"}]}"#)
        #expect(lines.contains("First failure: none"))
        #expect(lines.contains("Critical path (1.000s of 1.000s):"))
    }
}

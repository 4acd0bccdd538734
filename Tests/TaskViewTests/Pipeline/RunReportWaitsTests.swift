import TaskGraph
import TaskGraphProcess
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// The report's longest waits (docs/taskview.md, "taskview report"): how long each step
/// waited for its needs and for a job slot, on runs with known times.
@Suite struct RunReportWaitsTests {
    /// `core` waits 1 s for a slot; `test` needs core (3 s) and then waits 0.5 s for a slot.
    static func pipeline() -> TreeModel {
        var tree = TreeModel()
        var sequence: UInt64 = 0
        func at(_ time: Double, _ change: GraphChange) {
            sequence += 1
            tree.absorb(GraphEvent(sequence: sequence, time: time, change: change))
        }
        func state(_ time: Double, _ id: Int, _ state: TaskState) {
            at(time, .stateChanged(id: NodeID(id), state: state, failed: false, message: nil))
        }
        func info(_ time: Double, _ id: Int, _ info: String?) {
            at(time, .progress(id: NodeID(id), progress: TaskProgress(0, info: info)))
        }
        at(0, .added(id: NodeID(0), kind: NodeKind.concurrent, name: "ci", weight: 1, parent: nil, index: nil))
        at(0, .added(id: NodeID(1), kind: NodeKind.command, name: "core", weight: 1, parent: NodeID(0), index: nil))
        at(0, .added(id: NodeID(2), kind: NodeKind.after, name: "test", weight: 1, parent: NodeID(0), index: nil))
        at(0, .added(id: NodeID(3), kind: NodeKind.command, name: "test", weight: 1, parent: NodeID(2), index: nil))
        for id in [0, 1, 2] { state(0, id, .executing) }
        info(0, 1, CommandSlots.queuedInfo)
        info(0, 2, "waiting for core")
        info(1, 1, nil)
        state(3, 1, .completed)
        state(3, 3, .executing)
        // The `after` node reports its task's progress: its `queued` too.
        info(3, 3, CommandSlots.queuedInfo)
        info(3, 2, CommandSlots.queuedInfo)
        info(3.5, 3, nil)
        info(3.5, 2, nil)
        for id in [3, 2, 0] { state(5, id, .completed) }
        return tree
    }

    @Test func theReportListsTheLongestWaitsForNeedsAndSlots() {
        let report = RunReport(tree: Self.pipeline())
        #expect(
            report.waits == [
                WhyLine.Wait(id: 3, name: "test", needs: 3, slot: 0.5),
                WhyLine.Wait(id: 1, name: "core", needs: 0, slot: 1),
            ])
        #expect(
            Array(report.lines.drop { !$0.hasPrefix("Longest waits") }) == [
                "Longest waits (in all 3.000s for needs, 1.500s for a slot):",
                "  test  needs 3.000s  slot 0.500s",
                "  core  needs 0.000s  slot 1.000s",
            ])
        #expect(
            report.json.contains(
                #","waits":[{"id":3,"name":"test","needs":3,"slot":0.5},{"id":1,"name":"core","needs":0,"slot":1}],"#
            ))
    }

    @Test func aRunThatNeverWaitedHasNoWaitsBlock() {
        var tree = TreeModel()
        tree.absorb(
            GraphEvent(
                sequence: 1, time: 0,
                change: .added(id: NodeID(0), kind: NodeKind.task, name: "a", weight: 1, parent: nil, index: nil)))
        tree.absorb(
            GraphEvent(
                sequence: 2, time: 0,
                change: .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil)))
        let report = RunReport(tree: tree)
        #expect(report.waits.isEmpty)
        #expect(!report.lines.contains { $0.hasPrefix("Longest waits") })
        #expect(report.json.contains(#""waits":[]"#))
    }

    @Test func aHeadlessRunWithNeedsReportsTheWait() throws {
        let text = """
            {"kind": "concurrent", "name": "ci", "children": [
              {"kind": "work", "name": "core", "id": "core", "duration": 2, "steps": 0},
              {"kind": "work", "name": "lint", "duration": 0.5, "steps": 0},
              {"kind": "work", "name": "test", "duration": 1, "steps": 0, "needs": ["core"]}
            ]}
            """
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let root = ScenarioBuilder(graph: graph, seed: 1).build(scenario)
        var lines: [String] = []
        _ = HeadlessRunner.run(
            graph: graph, clock: clock, root: root.id, print: { lines.append($0) }, start: { root.execute() })
        #expect(
            Array(lines.drop { !$0.hasPrefix("Longest waits") }) == [
                "Longest waits (in all 2.000s for needs, 0.000s for a slot):",
                "  test  needs 2.000s  slot 0.000s",
            ])
    }
}

import Synchronization
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// Counts are of what the user made (docs/taskview.md, "Counts"): one per node of the file,
/// without the `after` adapters `needs` creates.
@Suite struct CountedNodesTests {
    /// A step that fails, one that needs it (skipped), one that succeeds, under `allSettled`.
    static let needs = """
        {"kind": "allSettled", "name": "ci", "children": [
          {"kind": "work", "name": "test", "id": "test", "duration": 1, "steps": 0, "fail": true,
           "message": "3 tests failed"},
          {"kind": "work", "name": "package", "needs": ["test"], "duration": 1, "steps": 0},
          {"kind": "work", "name": "lint", "duration": 1, "steps": 0}
        ]}
        """

    /// The tree after running `json` to its end on a virtual clock.
    func tree(_ json: String) throws -> TreeModel {
        let events = Mutex<[GraphEvent]>([])
        let scenario = try ScenarioDecoder.decode(Array(json.utf8), file: "s.json", name: "s")
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
        return tree
    }

    @Test func aFailedAndASkippedStepCountOnceEachEverywhere() throws {
        let tree = try tree(Self.needs)
        // ci, lint: succeeded; test: failed; package: skipped (its `after` node is not counted).
        #expect(tree.liveCount == 5)
        #expect(
            HeadlessSummary(tree: tree).countsLine
                == "Summary: 2 succeeded, 1 failed, 0 cancelled, 1 skipped, 0 not executed, 0 executing")
        let report = RunReport(tree: tree)
        #expect(report.counts["failed"] == 1)
        #expect(report.counts["skipped"] == 1)
        #expect(report.json.contains(#""succeeded":2,"failed":1,"cancelled":0,"skipped":1}"#))
        var m = DashboardModel(title: "ci")
        m.tree = tree
        m.fixSelection()
        let header = frame(&m, 100, 6, ascii: false)[0]
        #expect(header.contains("● 0  ✓ 2  ✗ 1  ⊘ 0  ○ 0  – 1"), "\(header)")
        // Collapsed, the root's row says what it hides: the same three nodes.
        m.view.selection = RowIndex(tree.roots[0])
        press(&m, .char("-"))
        let row = try #require(frame(&m, 100, 6, ascii: false).first { $0.contains("▸ ci") })
        #expect(row.hasSuffix("✓ 1 ✗ 1 – 1"), "\(row)")
    }

    @Test func replayingTheSameEventsCountsTheSame() throws {
        // A tree seeded from a snapshot (attach, seeking) counts as one built event by event.
        let tree = try tree(Self.needs)
        var snapshotTree = TreeModel()
        let events = Mutex<[GraphEvent]>([])
        let scenario = try ScenarioDecoder.decode(Array(Self.needs.utf8), file: "s.json", name: "s")
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let observation = graph.observe { e in events.withLock { $0.append(e) } }
        ScenarioBuilder(graph: graph, seed: 1).build(scenario).execute()
        clock.runUntilIdle()
        graph.flushObservers()
        observation.cancel()
        snapshotTree = TreeModel(snapshot: graph.snapshot())
        #expect(snapshotTree.counts == tree.counts)
        #expect(snapshotTree.liveCount == tree.liveCount)
    }
}

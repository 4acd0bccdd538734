import TaskGraph
import Testing

@testable import TaskViewCore

/// What retention dropped, as the dashboard shows it (docs/taskview.md): the row of a parent
/// with dropped children shows their counts and quantiles, the detail pane the figures, and
/// the header counts the dropped nodes with the live ones.
@Suite struct DroppedSummaryTests {
    let summary = ChildSummary(succeeded: 19_980, failed: 20, cancelled: 0, p50: 0.003, p95: 0.012, max: 0.04)

    /// A running `server` (#0) with one live child, its dropped children summarized, and
    /// 1,000 dropped `/fast` roots.
    func serverModel() -> DashboardModel {
        var s = EventScript()
        s.add(0, "server")
        s.start(0)
        s.add(1, "req", parent: 0)
        s.start(1)
        s.emit(.summary(id: NodeID(0), root: nil, summary: summary))
        s.emit(
            .summary(id: nil, root: "/fast", summary: ChildSummary(succeeded: 1000, p50: 0.003, p95: 0.003, max: 0.003))
        )
        return model(s, now: 2)
    }

    @Test func theRowShowsTheDroppedChildrenAndTheHeaderCountsTheWholeRun() {
        var m = serverModel()
        let lines = frame(&m, 160, 12)
        let row = lines.first { $0.contains("server") } ?? ""
        #expect(row.contains("+ 19,980 X 20 - p50 3ms"), "\(row)")
        #expect(Renderer(ascii: true).summaryText(summary) == "+ 19,980 X 20 - p50 3ms p95 12ms")
        #expect(Renderer(ascii: false).summaryText(summary) == "✓ 19,980 ✗ 20 · p50 3ms p95 12ms")
        // Two live nodes executing; succeeded: 19,980 children and 1,000 roots dropped.
        #expect(m.tree.counts[DisplayState.succeeded.rawValue] == 20_980)
        #expect(m.tree.counts[DisplayState.failed.rawValue] == 20)
        #expect(m.tree.counts[DisplayState.executing.rawValue] == 2)
        #expect(lines[0].contains("+ 20980"), "\(lines[0])")
    }

    @Test func droppedRootsHaveARowEachUnderTheTree() {
        var m = serverModel()
        let lines = frame(&m, 100, 12)
        let req = lines.firstIndex { $0.contains("req") } ?? -1
        let fast = lines.firstIndex { $0.contains("/fast") } ?? -1
        #expect(fast == req + 1, "\(lines)")
        #expect(lines[fast].hasPrefix("  /fast  + 1,000 - p50 3ms"), "\(lines[fast])")
    }

    @Test func manyDroppedRootNamesEndWithTheCountOfTheRest() {
        var s = EventScript()
        s.add(0, "server")
        for (k, name) in ["/a", "/b", "/c", "/d", "/e", "/f", "/g"].enumerated() {
            s.emit(.summary(id: nil, root: name, summary: ChildSummary(succeeded: 10 + k, failed: k == 6 ? 1 : 0)))
        }
        let m = model(s, now: 1)
        let lines = Renderer(ascii: true).droppedRootLines(m.tree, rows: 3).map { $0.name + "  " + $0.text }
        #expect(lines == ["/g  + 16 X 1", "/f  + 15", "+5 more root names  + 60"])
        #expect(Layout(width: 80, height: 30, detailOpen: false, droppedRootNames: 7).droppedRootRows == 5)
        #expect(Layout(width: 80, height: 30, detailOpen: false, droppedRootNames: 2).droppedRootRows == 2)
        #expect(Layout(width: 80, height: 6, detailOpen: false, droppedRootNames: 2).droppedRootRows == 0)
    }

    @Test func theDetailPaneShowsTheFigures() {
        var m = serverModel()
        press(&m, .enter)
        let lines = frame(&m, 100, 30)
        #expect(lines.contains { $0.contains("Dropped children (retention): 20,000") })
        #expect(lines.contains { $0.contains("durations: p50 3ms, p95 12ms, max 40ms") }, "\(lines)")
    }

    @Test func aLateViewerSeedsTheSameCountsFromASnapshot() {
        var node = GraphNode(
            id: NodeID(0), kind: NodeKind.scope, parent: nil, children: [], name: "server", weight: 1,
            state: .executing, failed: false, progress: TaskProgress(0), message: nil)
        node.droppedChildren = summary
        var snapshot = GraphSnapshot(nodes: [NodeID(0): node], roots: [NodeID(0)], sequence: 3)
        snapshot.droppedRoots = ["/fast": ChildSummary(succeeded: 1000)]
        let tree = TreeModel(snapshot: snapshot)
        #expect(tree.counts[DisplayState.succeeded.rawValue] == 20_980)
        #expect(tree.droppedSummaries[0] == summary)
        #expect(tree.droppedRoots["/fast"]?.succeeded == 1000)
    }

    @Test func latencyAndGroupedNumbers() {
        #expect(Format.grouped(19_980) == "19,980")
        #expect(Format.grouped(1_000_000) == "1,000,000")
        #expect(Format.grouped(999) == "999")
        #expect(Format.latency(0.0004) == "400µs")
        #expect(Format.latency(0.012) == "12ms")
        #expect(Format.latency(2.5) == "2.5s")
    }
}

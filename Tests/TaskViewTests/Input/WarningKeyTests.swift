import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// Warnings in the dashboard: `⚠` on the row with its text, `⚠ N` in the header (current
/// warnings), the detail pane's list, and `W` jumping to the next warned node in row order,
/// wrapping (docs/taskview.md, "Warnings").
@Suite struct WarningKeyTests {
    /// smallBuild plus warnings on `link` (#4) and `a.c` (#2, folded under `compile`).
    static func warned() -> DashboardModel {
        var s = smallBuild()
        s.emit(.warn(id: NodeID(4), rule: WarningRule.slow, text: "slow: 3.4× its usual 12s"))
        s.emit(.warn(id: NodeID(2), rule: WarningRule.silent, text: "no output for 2m"))
        s.emit(.warn(id: NodeID(2), rule: WarningRule.ignoresCancel, text: "ignores cancel: killed after its 5s grace"))
        return model(s)
    }

    @Test func headerCountsCurrentWarningsAndRowsLeadWithTheirs() {
        var m = Self.warned()
        let lines = frame(&m, 160, 8, ascii: false)
        #expect(lines[0].contains("⚠ 3"))
        #expect(lines.contains { $0.contains("link") && $0.contains("⚠ slow: 3.4× its usual 12s") })
        #expect(lines.contains { $0.contains("a.c") && $0.contains("⚠ no output for 2m") })
        m.tree.absorb(
            GraphEvent(sequence: 99, time: 5, change: .warn(id: NodeID(2), rule: WarningRule.silent, text: nil)))
        let after = frame(&m, 160, 8, ascii: false)
        #expect(after[0].contains("⚠ 2"))
        #expect(after.contains { $0.contains("a.c") && $0.contains("⚠ ignores cancel: killed") })
    }

    @Test func theDetailPaneListsEachWarningWithItsRule() {
        let m = Self.warned()
        let d = m.displayTree()
        let lines = Renderer(ascii: false).detailLines(m.tree, d, row: RowIndex(2))
        #expect(lines.contains("⚠ no output for 2m (silent)"))
        #expect(lines.contains("⚠ ignores cancel: killed after its 5s grace (ignoresCancel)"))
    }

    @Test func wJumpsToTheNextWarnedNodeInRowOrderAndWraps() {
        var m = Self.warned()
        m.view.selection = RowIndex(0)
        press(&m, .char("W"))
        #expect(m.view.selection == RowIndex(2))
        press(&m, .char("W"))
        #expect(m.view.selection == RowIndex(4))
        press(&m, .char("W"))
        #expect(m.view.selection == RowIndex(2)) // wrapped
        #expect(m.view.message == nil)
    }

    @Test func wWithoutWarningsSaysSo() {
        var m = model(smallBuild())
        let before = m.view.selection
        press(&m, .char("W"))
        #expect(m.view.selection == before)
        #expect(m.view.message == "no warnings")
    }

    @Test func aWarningEndsWithItsNodeDroppedOrAddedAgain() {
        var m = Self.warned()
        m.tree.absorb(GraphEvent(sequence: 100, time: 6, change: .dropped(ids: [NodeID(4)])))
        #expect(m.tree.warningCount == 2)
        #expect(m.tree.warningsSeen.count == 3) // the report keeps every warning that began
    }
}

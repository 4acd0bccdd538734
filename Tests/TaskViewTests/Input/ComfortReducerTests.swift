import TaskGraph
import Testing

@testable import TaskViewCore

/// root(0) > g1(1) > [a(2) failed, b(3) cancelled, x(6) > y(7) failed], g2(4) > [c(5) failed].
func twoGroups() -> EventScript {
    var s = EventScript()
    s.add(0, "root", kind: "allSettled")
    s.add(1, "g1", kind: "allSettled", parent: 0)
    s.add(2, "a", parent: 1)
    s.add(3, "b", parent: 1)
    s.add(6, "x", kind: "sequential", parent: 1)
    s.add(7, "y", parent: 6)
    s.add(4, "g2", kind: "allSettled", parent: 0)
    s.add(5, "c", parent: 4)
    for i in [0, 1, 2, 3, 6, 7, 4, 5] { s.start(i) }
    s.fail(2, "disk full")
    s.cancel(3, source: "keyboard")
    s.fail(7, "bad")
    s.fail(5, "boom")
    return s
}

@Suite struct ComfortReducerTests {
    @Test func nJumpsToTheNextFailureExpandingFoldedBranches() {
        var m = model(twoGroups())
        press(&m, .char("1")) // roots only
        #expect(!m.view.isExpanded(0))
        #expect(m.view.selection == 0)
        press(&m, .char("n"))
        #expect(m.view.selection == 2)
        #expect(m.view.isExpanded(0))
        press(&m, .char("n"))
        #expect(m.view.selection == 7)
        press(&m, .char("n"))
        #expect(m.view.selection == 5)
        press(&m, .char("n"))
        #expect(m.view.selection == 5)
        #expect(m.view.message == "no more failures")
        let rows = frame(&m, 60, 12)
        #expect(rows.last == "no more failures")
        press(&m, .char("N"))
        #expect(m.view.selection == 7)
        press(&m, .char("N"), .char("N"))
        #expect(m.view.selection == 2)
        #expect(m.view.message == "no more failures")
    }

    @Test func cJumpsToCancelledNodes() {
        var m = model(twoGroups())
        press(&m, .char("c"))
        #expect(m.view.selection == 3)
        press(&m, .char("c"))
        #expect(m.view.message == "no more cancelled nodes")
        press(&m, .char("G"), .char("C"))
        #expect(m.view.selection == 3)
    }

    @Test func jumpsFromTheTopWhenNothingIsSelectedAndSkipHealthyBranches() {
        var m = model(twoGroups())
        m.view.selection = .none
        press(&m, .char("N"))
        #expect(m.view.selection == 5)
    }

    @Test func replayJumpsAreSeeks() {
        var m = model(twoGroups())
        m.replay = ReplayState()
        #expect(press(&m, .char("n")) == [.replay(.nextFailed)])
        #expect(press(&m, .char("N")) == [.replay(.prevFailed)])
        #expect(press(&m, .char("c")) == [.replay(.nextCancelled)])
        #expect(press(&m, .char("C")) == [.replay(.prevCancelled)])
        #expect(press(&m, .char("]")) == [.replay(.nextMarker)])
        #expect(press(&m, .char("[")) == [.replay(.prevMarker)])
        // In the detail pane `[`/`]` keep scrolling its output: no seek.
        press(&m, .enter)
        #expect(press(&m, .char("]")) == [])
        // Live: `]` scrolls the pane, `[` without a pane does nothing.
        var live = model(twoGroups())
        #expect(press(&live, .char("]")) == [])
    }

    @Test func digitsFoldToDepthLiveAndZOrAltInReplay() {
        var m = model(twoGroups())
        press(&m, .char("2"))
        #expect(m.view.isExpanded(0))
        #expect(!m.view.isExpanded(1) && !m.view.isExpanded(4))
        #expect(frame(&m, 25, 6)[1...3] == ["* root", "|- * > g1", "`- * > g2"])
        press(&m, .char("3"))
        #expect(m.view.isExpanded(1) && !m.view.isExpanded(6))
        press(&m, .char("*"))
        #expect(m.view.isExpanded(6))
        var r = model(twoGroups())
        r.replay = ReplayState()
        #expect(press(&r, .char("1")) == [.replay(.jump(tenths: 1))])
        #expect(r.view.isExpanded(0))
        press(&r, .char("z"), .char("1"))
        #expect(!r.view.isExpanded(0))
        press(&r, .alt("2"))
        #expect(r.view.isExpanded(0) && !r.view.isExpanded(1))
        press(&r, .char("z"), .char("q")) // not a digit: nothing, and no quit
        #expect(!r.view.quitRequested)
        #expect(KeyTable.action(for: .alt("3"), replay: false) == .foldDepth(3))
    }

    @Test func foldingMovesTheSelectionToItsVisibleAncestor() {
        var m = model(twoGroups())
        press(&m, .char("n"), .char("n")) // y, depth 4
        press(&m, .char("2"))
        #expect(m.view.selection == 1)
    }

    @Test func sCyclesAnExplicitSortShownInTheHeader() {
        var s = EventScript()
        s.add(0, "root", kind: "concurrent")
        s.add(1, "b-short", parent: 0)
        s.add(2, "C-long", parent: 0)
        s.add(3, "a-never", parent: 0)
        s.start(0)
        s.start(2)
        _ = s.at(1)
        s.start(1)
        _ = s.at(2)
        s.succeed(1)
        var m = model(s, now: 5)
        #expect(frame(&m, 25, 6)[2...4] == ["|- + b-short", "|- * C-long", "`- o a-never"])
        press(&m, .char("s"))
        #expect(m.view.sort == .duration)
        #expect(frame(&m, 100, 6)[0].hasPrefix(" demo  5.0s  sort: duration  "))
        var rows = frame(&m, 25, 6)
        #expect(rows[2...4] == ["|- * C-long", "|- + b-short", "`- o a-never"])
        press(&m, .char("s"))
        rows = frame(&m, 25, 6)
        #expect(rows[2...4] == ["|- o a-never", "|- + b-short", "`- * C-long"])
        // Moving follows the sorted rows.
        press(&m, .char("g"), .down)
        #expect(m.view.selection == 3)
        press(&m, .char("G"))
        #expect(m.view.selection == 2)
        press(&m, .char("s"))
        #expect(m.view.sort == .creation)
        #expect(!frame(&m, 100, 6)[0].contains("sort"))
    }

    @Test func tabInTheFilterAlsoMatchesInfoAndErrors() {
        var m = model(twoGroups())
        press(&m, .char("/"), .char("b"), .char("o"), .char("o"), .char("m"))
        #expect(m.displayTree().first() == nil) // no name contains "boom"
        press(&m, .tab)
        #expect(m.view.filterWide)
        let d = m.displayTree()
        #expect(d.isVisible(5) && d.isVisible(4) && !d.isVisible(2))
        press(&m, .enter)
        #expect(m.view.filter == "boom")
    }

    @Test func mouseClicksSelectRowsAndDoubleClickOpensTheDetail() {
        var m = model(twoGroups())
        _ = frame(&m, 60, 12)
        press(&m, .mouse(MouseEvent(.click, row: 2)))
        #expect(m.view.selection == 2)
        press(&m, .mouse(MouseEvent(.doubleClick, row: 5)))
        #expect(m.view.selection == 7)
        #expect(m.view.detailOpen)
        press(&m, .mouse(MouseEvent(.click, row: 40))) // below the last row: nothing
        #expect(m.view.selection == 7)
        press(&m, .mouse(MouseEvent(.wheelUp, row: 0))) // three rows up: x, b, a
        #expect(m.view.selection == 2)
    }

    @Test func seekAndFindPromptsAskTheReplay() {
        var m = model(twoGroups())
        m.replay = ReplayState()
        press(&m, .char("t"))
        #expect(m.view.mode == .seekInput)
        #expect(
            press(&m, .char("1"), .char(":"), .char("3"), .char("0"), .enter) == [.replay(.seek(.seconds(90)))])
        press(&m, .char("t"), .char("x"), .enter)
        #expect(m.view.message == "Not a time: x (try 1:30, 90s or 45%)")
        #expect(
            press(&m, .char("F"), .char("l"), .char("i"), .char("n"), .char("k"), .enter) == [
                .replay(.find("link"))
            ])
        #expect(SeekTarget("90s") == .seconds(90))
        #expect(SeekTarget("45%") == .fraction(0.45))
        #expect(SeekTarget("1:02:03") == .seconds(3723))
        #expect(SeekTarget("2m") == .seconds(120))
        #expect(SeekTarget("150%") == nil)
        #expect(SeekTarget("") == nil)
        // Live: t and F are not bound.
        var live = model(twoGroups())
        press(&live, .char("t"))
        #expect(live.view.mode == .normal)
    }
}

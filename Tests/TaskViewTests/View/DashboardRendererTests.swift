import TaskGraph
import Testing

@testable import TaskViewCore

@Suite struct DashboardRendererTests {
    @Test func asciiSmallTreeExactRows() {
        var m = model(smallBuild())
        #expect(
            frame(&m, 60, 8) == [
                " demo  4.0s  * 2  + 2  X 1  / 0  o 0  - 0  ##=....... 25%",
                "* build                                 ##......  25%   4.0s",
                "|- + compile                            ######## 100%   3.0s",
                "|  |- + a.c                             ######## 100%   2.0s",
                "|  `- X b.c                             ........   0%   3.0s",
                "`- * link  w 3                          ####....  50%   0.5s",
                "",
                "Up/Down move  Enter detail  x cancel  space pause  / filter~",
            ])
    }

    @Test func unicodeSmallTreeExactRows() {
        var m = model(smallBuild())
        let rows = frame(&m, 100, 8, ascii: false)
        #expect(rows[0] == " demo  4.0s  ● 2  ✓ 2  ✗ 1  ⊘ 0  ○ 0  – 0  ██▌······· 25%")
        #expect(
            rows[1]
                == "● build                                   █████···············  25%   4.0s waiting on 1 child: link"
        )
        #expect(rows[2] == "├─ ✓ compile                              ████████████████████ 100%   3.0s")
        #expect(rows[3] == "│  ├─ ✓ a.c                               ████████████████████ 100%   2.0s Parsing")
        #expect(rows[4] == "│  └─ ✗ b.c                               ····················   0%   3.0s syntax error")
        #expect(rows[5] == "└─ ● link  w 3                            ██████████··········  50%   0.5s Writing binary")
        #expect(rows[7] == "↑↓ move  Enter detail  x cancel  space pause  / filter  f follow  ? help  q quit")
    }

    @Test func weightsReadAsWeightsNotCounts() {
        #expect(Format.weightLabel(3) == "w 3")
        #expect(Format.weightLabel(0.5) == "w 0.5")
        #expect(Format.weightLabel(9999) == "w 9999")
        #expect(Format.weightLabel(12_345) == "w 12.3k")
        #expect(Format.weightLabel(2_050_085) == "w 2.05M")
        #expect(Format.weightLabel(999_999) == "w 1.00M")
        var m = model(smallBuild())
        let rows = frame(&m, 60, 8)
        #expect(rows[5].hasPrefix("`- * link  w 3 "))
        #expect(!rows[1].contains(" w ")) // weight 1 is not shown
    }

    @Test func narrowTerminalKeepsNamesAndDropsColumns() {
        var m = model(smallBuild())
        #expect(
            frame(&m, 20, 5) == [
                " demo  4.0s  * 2  +",
                "* build",
                "|- + compile",
                "|  |- + a.c",
                "Up/Down move  Enter~",
            ])
    }

    @Test func selectionStaysVisibleWhenSmall() {
        var m = model(smallBuild())
        press(&m, .char("G")) // link, the last row
        let rows = frame(&m, 20, 5)
        #expect(rows[1...3] == ["|  |- + a.c", "|  `- X b.c", "`- * link  w 3"])
        #expect(m.view.top == 2)
    }

    @Test func selectedRowIsReversed() {
        var m = model(smallBuild())
        press(&m, .down)
        m.refreshDerived()
        let grid = Renderer(ascii: true).render(m, width: 40, height: 6).grid
        #expect(grid[0, 2].style.reverse)
        #expect(grid[39, 2].style.reverse)
        #expect(!grid[0, 1].style.reverse)
        #expect(grid[3, 2].style.role == .succeeded) // the glyph of compile
    }

    @Test func aFrameIsCurrentWithoutPreparation() {
        // No refreshDerived() anywhere: the filter set directly, then a new matching node.
        var m = model(smallBuild())
        m.view.filter = "b."
        let draw = { (m: DashboardModel) in Renderer(ascii: true).render(m, width: 30, height: 6).grid.lines }
        #expect(
            draw(m)[1...4] == [
                "* build                    25%", "`- + compile              100%", "   `- X b.c                 0%",
                "",
            ])
        m.absorb(
            GraphEvent(
                sequence: 99, time: 4,
                change: .added(
                    id: NodeID(9), kind: NodeKind.task, name: "lib.c", weight: 1, parent: NodeID(1), index: nil)))
        #expect(draw(m)[4] == "   `- - lib.c") // skipped: its allSettled parent has settled
    }

    @Test func eighthBlockPrecision() {
        var s = EventScript()
        s.add(0, "x")
        s.start(0)
        s.progress(0, 0.3)
        var m = model(s)
        let row = frame(&m, 50, 4, ascii: false)[1]
        // 8 cells * 8 eighths * 0.3 = 19.2 -> 2 full cells and 3/8.
        #expect(row == "● x                           ██▍·····  30%   0.0s")
    }

    @Test func skippedNodesShowDashAndNoBar() {
        var s = EventScript()
        s.add(0, "seq", kind: "sequential")
        s.add(1, "first", parent: 0)
        s.add(2, "second", parent: 0)
        s.start(0)
        s.start(1)
        _ = s.at(1)
        s.fail(1, "no")
        s.fail(0, "no")
        var m = model(s)
        let rows = frame(&m, 40, 6)
        #expect(rows[1] == "X seq                          0%   1.0s")
        #expect(rows[3] == "`- - second")
        #expect(m.tree.counts[DisplayState.skipped.rawValue] == 1)
    }

    @Test func mapAdapterFoldedIntoChildRow() {
        var s = EventScript()
        s.add(0, "fetch")
        s.add(1, "map", kind: "map")
        s.adopt(0, by: 1, at: 0)
        s.add(2, "group", kind: "sequential")
        s.adopt(1, by: 2, at: 0)
        s.start(2)
        s.start(1)
        s.start(0)
        var m = model(s)
        #expect(frame(&m, 20, 5) == [" demo  0.0s  * 3  +", "* group", "`- * fetch", "", "Up/Down move  Enter~"])
        m.view.foldMaps = false
        m.fixSelection()
        #expect(frame(&m, 20, 5)[2...3] == ["`- * map", "   `- * fetch"])
    }

    @Test func namesAreSanitized() {
        var s = EventScript()
        s.add(0, "evil\u{1B}[2Jname\nline\u{7}")
        var m = model(s, title: "t\u{1B}]0;x\u{7}")
        let rows = frame(&m, 40, 4)
        #expect(rows[1] == "o evil?[2Jname line?           0%")
        #expect(rows[0].hasPrefix(" t?]0;x?  0.0s"))
        for r in rows { #expect(!r.unicodeScalars.contains { $0.value < 0x20 }) }
    }

    @Test func asciiModeHasOnlyASCII() {
        var s = smallBuild()
        s.add(5, "ünïcödé ✓ 名前", parent: 0)
        var m = model(s)
        press(&m, .char("?"))
        for r in frame(&m, 80, 30) { #expect(r.unicodeScalars.allSatisfy { $0.isASCII }, "\(r)") }
        press(&m, .escape, .enter)
        for r in frame(&m, 80, 30) { #expect(r.unicodeScalars.allSatisfy { $0.isASCII }, "\(r)") }
    }

    @Test func emptyGraphSaysNoTasks() {
        var m = DashboardModel(title: "empty")
        let rows = frame(&m, 80, 4)
        #expect(rows[0].hasSuffix("no tasks"))
        #expect(rows[1] == "  no tasks")
    }

    @Test func headerShowsFinishedPausedAndFollow() {
        var s = smallBuild()
        s.succeed(4)
        s.succeed(0)
        var m = model(s)
        m.updateOutcome()
        press(&m, .char(" "), .char("f"))
        let header = frame(&m, 120, 5)[0]
        #expect(header.hasPrefix(" demo  4.0s  finished: succeeded  PAUSED  FOLLOW  * 0  + 4  X 1"))
    }

    @Test func helpIsGeneratedFromTheKeyTable() {
        var m = model(smallBuild())
        press(&m, .char("?"))
        let rows = frame(&m, 80, 50) // the live key list is 40 lines long
        #expect(rows[1] == " Keys (any key closes this help)")
        for line in KeyTable.helpLines(replay: false, ascii: true) {
            #expect(rows.contains("   " + line), "\(line)")
        }
        #expect(!rows.contains { $0.contains("seek") })
    }

    @Test func detailPaneShowsKindHistoryAndError() {
        var m = model(smallBuild())
        press(&m, .down, .down, .down, .enter) // b.c
        let rows = frame(&m, 80, 20)
        #expect(rows.contains(" Name: b.c"))
        #expect(rows.contains(" Kind: task   Id: #3   Parent: #1 compile"))
        #expect(rows.contains(" State: failed"))
        #expect(rows.contains("   0.000s  executing"))
        #expect(rows.contains("   3.000s  failed"))
        #expect(rows.contains(" Error: syntax error"))
        press(&m, .escape)
        #expect(!frame(&m, 80, 20).contains(" Name: b.c"))
    }

    @Test func confirmPromptNamesUpwardAncestors() {
        var s = EventScript()
        s.add(0, "root", kind: "sequential")
        s.add(1, "group", kind: "allSettled", parent: 0)
        s.add(2, "inner", kind: "concurrent", parent: 1)
        s.add(3, "leaf a", parent: 2)
        s.add(4, "leaf b", parent: 2)
        for i in 0...4 { s.start(i) }
        var m = model(s)
        press(&m, .down, .down) // inner
        press(&m, .char("x"))
        var rows = frame(&m, 70, 8)
        #expect(rows[7] == "Cancel inner and its 2 running subtasks? [y/N]")
        #expect(rows[6] == "") // group is an allSettled: nothing upward
        press(&m, .char("n"))
        press(&m, .down, .char("x")) // leaf a: cancels inner too, stops at group
        rows = frame(&m, 70, 8)
        #expect(rows[7] == "Cancel leaf a (it is running)? [y/N]") // a leaf has no subtasks to count
        #expect(rows[6] == "Also cancels (upward): inner")
    }
}

@Suite struct DashboardRendererSizeTests {
    /// Every size from nothing to 30x9, in every mode: no crash, exact grid size, the
    /// selection on screen whenever there are tree rows.
    @Test func everySmallSizeInEveryMode() {
        var s = smallBuild()
        s.add(5, "名前 wide", parent: 0)
        for mode in 0..<5 {
            var m = model(s)
            press(&m, .end)
            switch mode {
            case 1: press(&m, .enter)
            case 2: press(&m, .char("?"))
            case 3: press(&m, .char("x"))
            case 4: press(&m, .char("/"), .char("a"))
            default: break
            }
            for w in 0...30 {
                for h in 0...9 {
                    m.refreshDerived()
                    let f = Renderer(ascii: w % 2 == 0).render(m, width: w, height: h)
                    #expect(f.grid.cells.count == w * h)
                    let layout = Layout(width: w, height: h, detailOpen: m.view.detailOpen)
                    if (mode == 0 || mode == 1) && layout.treeRows > 0 && w > 0 {
                        // The selected row (reverse video) is on screen.
                        #expect((0..<h).contains { f.grid[0, $0].style.reverse }, "\(w)x\(h)")
                    }
                }
            }
        }
    }
}

import TaskGraph
import Testing

@testable import TaskViewCore

/// A root `group` with 3 executing, 120 succeeded and 1 failed children (ids 1...124).
func bigGroup() -> EventScript {
    var s = EventScript()
    s.add(0, "group", kind: "allSettled")
    for i in 1...124 { s.add(i, "leaf \(i)", parent: 0) }
    s.start(0)
    for i in 1...124 { s.start(i) }
    for i in 1...120 { s.succeed(i) }
    s.fail(121, "boom")
    return s
}

@Suite struct ComfortRendererTests {
    @Test func collapsedRowShowsCountsInsteadOfInfo() {
        var m = model(smallBuild())
        press(&m, .down, .char("-")) // collapse compile
        let rows = frame(&m, 100, 8, ascii: false)
        #expect(rows[2] == "├─ ✓ ▸ compile                            ████████████████████ 100%   3.0s ✓ 1 ✗ 1")
        #expect(rows[3] == "└─ ● link  w 3                            ██████████··········  50%   0.5s Writing binary")
    }

    @Test func countsReadLikeTheSpec() {
        var m = model(bigGroup())
        press(&m, .char("-"))
        let rows = frame(&m, 100, 6, ascii: false)
        #expect(rows[1] == "● ▸ group                                 ····················   0%   0.0s ● 3 ✓ 120 ✗ 1")
        let ascii = frame(&m, 100, 6)
        #expect(ascii[1] == "* > group                                 ....................   0%   0.0s * 3 + 120 X 1")
    }

    @Test func aFailureBelowTurnsTheGlyphRedOnlyWhileFolded() {
        var m = model(smallBuild())
        press(&m, .down) // compile: succeeded, b.c below failed
        m.refreshDerived()
        var grid = Renderer(ascii: false).render(m, width: 100, height: 8).grid
        #expect(grid[3, 2].scalar == "✓")
        #expect(grid[3, 2].style.role == .succeeded)
        press(&m, .char("-"))
        m.refreshDerived()
        grid = Renderer(ascii: false).render(m, width: 100, height: 8).grid
        #expect(grid[3, 2].scalar == "✓")
        #expect(grid[3, 2].style.role == .failed)
        #expect(grid[3, 2].style.bold)
        // The counts: glyphs in their state's colour.
        let counts = grid.rowText(2).firstRange(of: "✗ 1")!.lowerBound
        let x = grid.rowText(2).distance(from: grid.rowText(2).startIndex, to: counts)
        #expect(grid[x, 2].style.role == .failed)
    }

    @Test func countsThatDoNotFitAreLeftOutWholeNeverCut() {
        var m = model(bigGroup())
        press(&m, .char("-"))
        let grid = Renderer(ascii: true).render(m, width: 96, height: 4).grid
        // info column: 24 columns from 72: "* 3 + 120 X 1" fits.
        #expect(grid.lines[1].hasSuffix(" * 3 + 120 X 1"))
        let r = Renderer(ascii: true)
        var g = CellGrid(width: 10, height: 1)
        r.drawCounts(m.tree[0].descendantCounts, x: 0, y: 0, limit: 10, into: &g)
        #expect(g.lines == ["* 3 + 120"])
        g = CellGrid(width: 10, height: 1)
        r.drawCounts(m.tree[0].descendantCounts, x: 0, y: 0, limit: 8, into: &g)
        #expect(g.lines == ["* 3"])
    }
}

@Suite struct HelpOverlayTests {
    @Test func helpListsTheNewKeysInTwoColumnsWhenTall() {
        var m = model(twoGroups())
        m.replay = ReplayState()
        press(&m, .char("?"))
        let rows = frame(&m, 140, 30, ascii: false)
        let text = rows.joined(separator: "\n")
        for key in ["n  ", "N  ", "c  ", "C  ", "z 1-9", "Alt-1-9", "s  ", "[  ", "]  ", "t  ", "F  "] {
            #expect(text.contains("  " + key), "help lacks \(key)")
        }
        #expect(KeyTable.helpLines(replay: true).count > 20)
        #expect(rows[3].hasPrefix("   ↑/k"))
        var live = model(twoGroups())
        press(&live, .char("?"))
        #expect(frame(&live, 140, 40).joined().contains("1-9"))
    }
}

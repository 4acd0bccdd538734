import TaskGraph
import Testing

@testable import TaskViewCore

/// Names and info by display width: East Asian wide characters and emoji take two cells,
/// combining marks none; a cut never falls inside a wide character.
@Suite struct WideCharacterTests {
    func wideTree() -> EventScript {
        var s = EventScript()
        s.add(0, "漢字漢字漢字漢字漢字漢字", kind: "concurrent")
        s.add(1, "🚀 deploy", parent: 0)
        s.add(2, "cafe\u{301} au lait", parent: 0) // e + combining acute
        s.add(3, "caf\u{E9} au lait", parent: 0) // precomposed é
        s.start(0)
        s.start(1)
        s.progress(1, 0.5, "アップロード中です")
        return s
    }

    @Test func rowsAlignWithWideNamesAndCutBeforeAWideCharacter() {
        var m = model(wideTree())
        let grid = Renderer(ascii: false).render(m, width: 20, height: 6).grid
        // 18 columns for the name: eight wide characters (16), then the ellipsis; the ninth
        // would end at column 19 > 18 - 1, so it is not split: column 19 stays blank.
        #expect(grid.lines[1] == "● 漢字漢字漢字漢字…")
        #expect(grid[18, 1].scalar == "…")
        #expect(grid[19, 1].scalar == " ")
        #expect(grid[3, 1].scalar == Cell.continuationScalar) // right half of 漢
        // Combining marks take no cell: both spellings of café line up.
        #expect(frame(&m, 20, 6, ascii: false)[2...4] == ["├─ ● 🚀 deploy", "├─ ○ cafe au lait", "└─ ○ café au lait"])
    }

    @Test func columnsAfterWideNamesStayInPlace() {
        var m = model(wideTree())
        let rows = frame(&m, 100, 6, ascii: false)
        // The bar starts in the same column on every row, whatever the name's characters.
        let barColumn = { (row: String) -> Int in
            var col = 0
            for s in row.unicodeScalars {
                if s == "█" || s == "·" || s == "▌" { return col }
                col += Sanitizer.width(s)
            }
            return -1
        }
        let columns = rows[1...4].map(barColumn)
        #expect(columns.allSatisfy { $0 == columns[0] && $0 > 0 })
        // Wide info text is cut by width too.
        #expect(rows[2].hasSuffix(" アップロード中です"))
        let narrow = Renderer(ascii: false).render(m, width: 96, height: 6).grid
        let info = narrow.lines[2]
        #expect(Sanitizer.columns(info) <= 96)
    }

    @Test func writeFittedNeverSplitsAWideCharacter() {
        for limit in 1...9 {
            var g = CellGrid(width: 10, height: 1)
            let end = g.writeFitted("漢字漢字漢字", x: 0, y: 0, limit: limit, ellipsis: "…")
            #expect(end <= limit)
            // Every wide character drawn has its right half; no half stands alone.
            for x in 0..<10 where g[x, 0].scalar == Cell.continuationScalar {
                #expect(x > 0 && g[x - 1, 0].scalar == "漢" || g[x - 1, 0].scalar == "字")
            }
            #expect(g[0, 0].scalar != Cell.continuationScalar)
        }
        #expect(Sanitizer.columns("🚀漢a\u{301}") == 5)
        #expect(Sanitizer.clean("a\u{301}") == "a")
    }
}

import Testing
import TaskGraph
@testable import TaskViewCore

@Suite struct DashboardRendererTests {
    @Test func asciiSmallTreeExactRows() {
        var m = model(smallBuild())
        let rows = frame(&m, 60, 8)
        for r in rows { print("|" + r + "|") }
        #expect(rows.count == 8)
    }

    @Test func unicodeSmallTreeExactRows() {
        var m = model(smallBuild())
        let rows = frame(&m, 100, 8, ascii: false)
        for r in rows { print("|" + r + "|") }
    }

    @Test func narrowTerminal() {
        var m = model(smallBuild())
        let rows = frame(&m, 20, 5)
        for r in rows { print("|" + r + "|") }
    }
}

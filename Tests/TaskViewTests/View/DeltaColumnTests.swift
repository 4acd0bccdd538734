import TaskGraph
import Testing

@testable import TaskViewCore

/// The Δ column (`d`) and the detail pane against a baseline run (docs/taskview.md,
/// "Comparing with another run"), on `smallBuild` at t = 4: a.c took 2 s, compile 3 s, b.c
/// failed after 3 s, link has run 0.5 s.
@Suite struct DeltaColumnTests {
    static let baseline = Baseline(
        record: RunRecord(
            nodes: [
                .init(path: "build", outcome: "succeeded", seconds: 5),
                .init(path: "build/compile", outcome: "succeeded", seconds: 4),
                .init(path: "build/compile/a.c", outcome: "succeeded", seconds: 1),
                .init(path: "build/compile/b.c", outcome: "succeeded", seconds: 3.1),
                .init(path: "build/link", outcome: "succeeded", seconds: 0.25),
            ], total: 5),
        name: Baseline.previousRun)

    /// The Δ cells of the rows shown (trimmed), and their roles.
    func cells(_ m: inout DashboardModel, width: Int = 100) -> [(text: String, role: StyleRole)] {
        m.refreshDerived()
        let grid = Renderer(ascii: false).render(m, width: width, height: 8).grid
        let layout = Layout(width: width, height: 8, detailOpen: false, delta: true)
        let x = layout.nameColumns + 1 + layout.barWidth + 1 + layout.percentWidth + 1 + layout.timeWidth + 1
        return (1...5).map { y in
            let row = Array(grid.rowText(y))
            let text = String(row[x..<(x + layout.deltaWidth)]).split(separator: " ").joined(separator: " ")
            return (text, grid[x + layout.deltaWidth - 1, y].style.role)
        }
    }

    @Test func settledRowsShowTheirChangeRunningOnesTheirPaceAndSmallChangesNothing() {
        var m = model(smallBuild())
        m.baseline = Self.baseline
        press(&m, .char("d"))
        let c = cells(&m)
        // build (running), compile -1.0s, a.c +1.0s, b.c -0.1s (3 %: blank), link 0.5 s of 0.25.
        #expect(c.map(\.text) == ["0.8× usual", "-1.0s", "+1.0s", "", "2.0× usual"])
        #expect(c[1].role == .succeeded) // faster: the success colour
        #expect(c[2].role == .executing) // slower: the warning colour
        #expect(c[4].role == .executing) // running past its usual time
    }

    @Test func aRowTheBaselineLacksIsNew() {
        var m = model(smallBuild())
        var b = Self.baseline
        b.record = RunRecord(nodes: b.record.nodes.filter { $0.path != "build/link" }, total: 5)
        m.baseline = b
        press(&m, .char("d"))
        #expect(cells(&m)[4].text == "new")
    }

    @Test func dTogglesTheColumnAndSaysSoWithoutABaseline() {
        var m = model(smallBuild())
        let plain = frame(&m, 100, 8, ascii: false)
        press(&m, .char("d"))
        #expect(!m.view.showDelta)
        #expect(m.view.message == "No baseline: no earlier run of this scenario (--baseline LOG names one)")
        m.baseline = Self.baseline
        press(&m, .char("d"))
        #expect(m.view.showDelta)
        #expect(frame(&m, 100, 8, ascii: false)[3].contains("+1.0s"))
        press(&m, .char("d"))
        #expect(frame(&m, 100, 8, ascii: false) == plain)
    }

    @Test func theDetailPaneShowsBothRuns() {
        var m = model(smallBuild())
        m.baseline = Self.baseline
        press(&m, .down, .down, .enter) // a.c
        let rows = frame(&m, 100, 30, ascii: false)
        #expect(
            rows.contains { $0.contains("Baseline (previous run): 1.000s succeeded; now 2.000s succeeded, +1.000s") })
    }

    @Test func helpListsD() {
        #expect(KeyTable.action(for: .char("d"), replay: false) == .toggleDelta)
        #expect(KeyTable.action(for: .char("d"), replay: true) == .toggleDelta)
        #expect(
            KeyTable.helpLines(replay: false).contains {
                $0.hasPrefix("d ") && $0.hasSuffix("diff column: each row against the previous run (or --baseline)")
            })
    }
}

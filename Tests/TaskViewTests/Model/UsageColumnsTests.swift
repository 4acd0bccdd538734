import TaskGraph
import Testing

@testable import TaskViewCore

/// What each node costs on the dashboard: the `u` columns (a group sums CPU and shows the
/// largest peak below it), the detail pane, the report and the run history.
@Suite struct UsageColumnsTests {
    static let mib = 1 << 20

    /// build > compile > a.c (settled: 1.5 s, 100 MiB), b.c (running: 0.5 s at 15 % of a
    /// core, 300 MiB).
    static func script() -> EventScript {
        var s = EventScript()
        s.add(0, "build", kind: "sequential")
        s.add(1, "compile", kind: "allSettled", parent: 0)
        s.add(2, "a.c", kind: "command", parent: 1)
        s.add(3, "b.c", kind: "command", parent: 1)
        for i in 0...3 { s.start(i) }
        _ = s.at(1)
        s.emit(.usage(id: NodeID(2), usage: NodeUsage(cpu: 0.5, rss: 50 * mib)))
        s.emit(.usage(id: NodeID(3), usage: NodeUsage(cpu: 0.2, rss: 300 * mib)))
        _ = s.at(2)
        s.emit(.usage(id: NodeID(2), usage: NodeUsage(cpu: 1.5, rss: 100 * mib)))
        s.succeed(2)
        _ = s.at(3)
        s.emit(.usage(id: NodeID(3), usage: NodeUsage(cpu: 0.5, rss: 300 * mib)))
        return s
    }

    @Test func groupsSumCPUAndShowTheLargestPeakBelowThem() {
        let tree = model(Self.script()).tree
        let totals = tree.usageTotals()
        #expect(totals[2] == UsageTotal(cpu: 1.5, rss: 100 * Self.mib, rate: nil))
        #expect(totals[3]?.cpu == 0.5)
        #expect(totals[3]?.rss == 300 * Self.mib)
        #expect(abs((totals[3]?.rate ?? 0) - 0.15) < 1e-9) // (0.5 - 0.2) / 2 s
        #expect(totals[1]?.cpu == 2.0)
        #expect(totals[1]?.rss == 300 * Self.mib)
        #expect(totals[0]?.cpu == 2.0)
        #expect(totals[0]?.rss == 300 * Self.mib)
    }

    @Test func uTogglesTheCPUAndRSSColumns() {
        var m = model(Self.script())
        var lines = frame(&m, 100, 8)
        #expect(!lines.joined().contains("MiB"))
        #expect(KeyTable.action(for: .char("u"), replay: false) == .toggleUsage)
        #expect(KeyTable.action(for: .char("u"), replay: true) == .toggleUsage)
        press(&m, .char("u"))
        #expect(m.view.showUsage)
        lines = frame(&m, 100, 8)
        #expect(lines[0].contains("CPU RSS"))
        let row = { (name: String) in lines.first { $0.contains(name) } ?? "" }
        #expect(row("a.c").contains(" 1.50s  100MiB"), "\(row("a.c"))")
        #expect(row("b.c").contains("   15%  300MiB"), "\(row("b.c"))")
        #expect(row("compile").contains("   15%  300MiB"), "\(row("compile"))") // running: the rate below it
        press(&m, .char("u"))
        #expect(!frame(&m, 100, 8).joined().contains("MiB"))
    }

    @Test func theDetailPaneSaysWhatTheNodeAndWhatASubtreeCost() {
        let tree = model(Self.script()).tree
        let d = DisplayTree(tree: tree, view: ViewState(), mask: nil)
        let r = Renderer(ascii: true)
        #expect(r.detailLines(tree, d, row: RowIndex(2)).contains("CPU: 1.50s   Peak RSS: 100MiB"))
        #expect(r.detailLines(tree, d, row: RowIndex(3)).contains("CPU: 0.50s (15% now)   Peak RSS: 300MiB"))
        #expect(
            r.detailLines(tree, d, row: RowIndex(1)).contains(
                "CPU below: 2.00s (15% now)   Largest peak RSS below: 300MiB"))
    }

    @Test func theReportListsTheTopByCPUAndByMemoryInTextAndJSON() {
        let report = RunReport(tree: model(Self.script()).tree)
        #expect(
            report.topCPU == [
                UsageRank(path: "build/compile/a.c", value: 1.5), UsageRank(path: "build/compile/b.c", value: 0.5),
            ])
        #expect(
            report.json.contains(
                #""cpu":[{"path":"build/compile/a.c","seconds":1.5},{"path":"build/compile/b.c","seconds":0.5}],"#
                    + #""memory":[{"path":"build/compile/b.c","bytes":314572800},{"path":"build/compile/a.c","bytes":104857600}]"#
            ))
        let lines = report.lines
        let most = lines.firstIndex(of: "Most CPU:") ?? lines.count
        #expect(
            Array(lines[most...]) == [
                "Most CPU:", "  build/compile/a.c  1.50s", "  build/compile/b.c  0.50s",
                "Most memory:", "  build/compile/b.c  300MiB", "  build/compile/a.c  100MiB",
            ])
        // Without usage: empty lists, no lines.
        let plain = RunReport(tree: model(smallBuild()).tree)
        #expect(plain.json.contains(#""cpu":[],"memory":[]"#))
        #expect(!plain.lines.contains("Most CPU:"))
    }

    @Test func theHistoryKeepsEachRowsCPUAndRSS() throws {
        let tree = model(Self.script()).tree
        let entry = HistoryEntry(tree: tree, root: 0, run: "r.jsonl", start: 1, status: 0, keys: [:])
        let a = try #require(entry.nodes.first { $0.path == "build/compile/a.c" })
        #expect(a.cpu == 1.5)
        #expect(a.rss == 100 * Self.mib)
        #expect(entry.nodes.first { $0.path == "build" }?.cpu == nil) // a group reports none itself
        #expect(
            entry.line.contains(
                #""path":"build/compile/a.c","outcome":"succeeded","seconds":2,"attempts":1,"cpu":1.5,"rss":104857600}"#
            ))
        #expect(HistoryEntry(line: Array(entry.line.utf8)) == entry)
    }

    @Test func sizesAndTimesReadAsTheColumnsWriteThem() {
        #expect(Format.bytes(840 * 1024) == "840KiB")
        #expect(Format.bytes(5_452_595) == "5.2MiB")
        #expect(Format.bytes(212 * Self.mib) == "212MiB")
        #expect(Format.bytes(3 * Self.mib / 2 * 1024) == "1.5GiB")
        #expect(Format.cpuSeconds(0.4242) == "0.42s")
        #expect(Format.cpuSeconds(12.34) == "12.3s")
        #expect(Format.cpuSeconds(65) == "1m05s")
        #expect(Format.cpuPercent(1.954) == "195%")
    }
}

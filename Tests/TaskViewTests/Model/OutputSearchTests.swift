import TaskGraph
import TaskGraphProcess
import Testing

@testable import TaskViewCore

/// The detail pane's output search (docs/taskview.md, "Output"): `/` searches a
/// command's output case-insensitively, `n`/`N` go to the next/previous match, matches are
/// highlighted and the pane header counts them.
@Suite struct OutputSearchTests {
    /// A running command `build` (#0) that printed `lines`, then a plain task `other` (#1).
    func commandModel(_ lines: [String]) -> DashboardModel {
        var s = EventScript()
        s.add(0, "build")
        s.add(1, "other")
        _ = s.at(0.5)
        s.start(0)
        for l in lines { s.emit(.output(id: NodeID(0), stream: .stdout, text: l)) }
        var m = model(s, now: 2)
        m.tree.setCommand(CommandInfo(commandLine: "make", workingDirectory: "/src", pid: 7), for: 0)
        return m
    }

    /// 30 lines, `line 1` ... `line 30`, with `ERROR a` at 5, `error b` at 12 and `Error c` at 20.
    func sample() -> DashboardModel {
        commandModel(
            (1...30).map { i in
                switch i {
                case 5: "ERROR a"
                case 12: "error b"
                case 20: "Error c"
                default: "line \(i)"
                }
            })
    }

    func type(_ m: inout DashboardModel, _ text: String) {
        for c in text { press(&m, .char(c)) }
    }

    func rule(_ lines: [String]) -> String {
        lines.first { $0.hasPrefix("-- detail") }!
    }

    @Test func occurrencesAreCaseInsensitiveAndDoNotOverlap() {
        #expect(OutputSearch.occurrences(in: "Error: an ERROR", of: "error").map(\.start) == [0, 10])
        #expect(OutputSearch.occurrences(in: "aaaa", of: "aa").map(\.start) == [0, 2])
        #expect(OutputSearch.occurrences(in: "abc", of: "").isEmpty)
        #expect(OutputSearch.occurrences(in: "ab", of: "abc").isEmpty)
    }

    @Test func slashInACommandsDetailPaneSearchesItsOutputNotTheTree() {
        var m = sample()
        #expect(KeyTable.action(for: .char("/"), replay: false) == .filter)
        press(&m, .enter)
        #expect(m.keyContext == .commandDetail)
        press(&m, .char("/"))
        #expect(m.view.mode == .searchInput)
        type(&m, "error")
        #expect(m.view.filter == "")
        #expect(m.view.search == "error")
        #expect(frame(&m, 60, 24).last == "search output: error_")
        press(&m, .enter)
        #expect(m.view.mode == .normal)
        // The first match (line 5, counted from 0: 4) is current and shown.
        #expect(m.view.searchLine == 4)
        #expect(m.keyContext == .outputSearch)
        #expect(rule(frame(&m, 60, 24)).hasPrefix("-- detail: match 1 of 3 (n/N) (Esc clears) ---"))
    }

    @Test func nAndNGoThroughTheMatchesAndWrapAround() {
        var m = sample()
        press(&m, .enter, .char("/"))
        type(&m, "error")
        press(&m, .enter, .char("n"))
        #expect(m.view.searchLine == 11)
        #expect(rule(frame(&m, 60, 24)).contains("match 2 of 3"))
        press(&m, .char("n"))
        #expect(m.view.searchLine == 19)
        press(&m, .char("n"))
        #expect(m.view.searchLine == 4)
        press(&m, .char("N"))
        #expect(m.view.searchLine == 19)
        #expect(rule(frame(&m, 60, 24)).contains("match 3 of 3"))
        // The pane scrolled to show the match with two lines after it.
        #expect(m.view.detailOutputEnd == 22)
    }

    @Test func matchesAreHighlightedAndTheCurrentLineMarked() {
        var m = sample()
        press(&m, .enter, .char("/"))
        type(&m, "error")
        press(&m, .enter, .char("n"))
        // A tall pane: every match on screen.
        m.refreshDerived()
        let f = Renderer(ascii: true).render(m, width: 60, height: 60).grid
        let y = (0..<60).first { f.rowText($0).hasPrefix(">  error b") }
        #expect(y != nil)
        guard let y else { return }
        // "error" in columns 3..<8 is in reverse video and bold; what follows is not.
        #expect((3..<8).allSatisfy { f[$0, y].style.reverse && f[$0, y].style.bold })
        #expect(!f[8, y].style.reverse && !f[9, y].style.reverse)
        // Another match on screen is reversed but not bold, and its line is not marked.
        let other = (0..<60).first { f.rowText($0).hasPrefix("   Error c") }
        #expect(other != nil)
        if let other {
            #expect((3..<8).allSatisfy { f[$0, other].style.reverse && !f[$0, other].style.bold })
        }
        // Lines without a match are not.
        let plain = (0..<60).first { f.rowText($0).hasPrefix("   line 13") }!
        #expect(!(0..<60).contains { f[$0, plain].style.reverse })
    }

    @Test func noMatchIsSaidInThePaneHeaderAndByN() {
        var m = sample()
        press(&m, .enter, .char("/"))
        type(&m, "xyz")
        press(&m, .enter)
        #expect(m.view.searchLine == nil)
        #expect(rule(frame(&m, 60, 24)).hasPrefix("-- detail: no match for \"xyz\" (Esc clears) ---"))
        press(&m, .char("n"))
        #expect(frame(&m, 60, 24).last == "no match for \"xyz\"")
    }

    @Test func escClearsTheSearchThenClosesThePane() {
        var m = sample()
        press(&m, .enter, .char("/"))
        type(&m, "error")
        press(&m, .enter, .escape)
        #expect(m.view.search == "" && m.view.detailOpen)
        #expect(m.view.detailOutputEnd == nil)
        #expect(rule(frame(&m, 60, 24)).hasPrefix("-- detail (Esc closes) ---"))
        // Without a search, n is not a match key.
        #expect(m.keyContext == .commandDetail)
        press(&m, .escape)
        #expect(!m.view.detailOpen)
        // Esc while typing cancels the search.
        press(&m, .enter, .char("/"), .char("e"), .escape)
        #expect(m.view.search == "" && m.view.mode == .normal && m.view.detailOpen)
    }

    @Test func movingToAnotherRowEndsTheSearch() {
        var m = sample()
        press(&m, .enter, .char("/"))
        type(&m, "error")
        press(&m, .enter, .down)
        #expect(m.view.search == "")
        #expect(m.view.searchLine == nil)
    }

    @Test func outsideACommandsPaneSlashStillFiltersByName() {
        var m = sample()
        press(&m, .down, .enter)
        #expect(m.keyContext == .anywhere)
        press(&m, .char("/"))
        #expect(m.view.mode == .filterInput)
    }

    @Test func footerAndHelpComeFromTheKeyTable() {
        #expect(KeyTable.footer(replay: false, ascii: true).contains("/ filter"))
        let inPane = KeyTable.footer(replay: false, ascii: true, context: .commandDetail)
        #expect(inPane.contains("/ search") && !inPane.contains("/ filter") && !inPane.contains("n/N"))
        let searching = KeyTable.footer(replay: false, ascii: true, context: .outputSearch)
        #expect(searching.contains("/ search") && searching.contains("n/N match"))
        let help = KeyTable.helpLines(replay: false)
        #expect(help.contains { $0.hasPrefix("/") && $0.hasSuffix("in a command's detail pane: search its output") })
        #expect(help.contains { $0.hasPrefix("n ") && $0.hasSuffix("next output match (while searching)") })
        #expect(help.contains { $0.hasPrefix("N ") && $0.hasSuffix("previous output match") })
        #expect(KeyTable.action(for: .char("n"), replay: false, context: .outputSearch) == .searchNext)
        #expect(KeyTable.action(for: .char("N"), replay: true, context: .outputSearch) == .searchPrevious)
    }
}

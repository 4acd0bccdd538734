import TaskGraph
import TaskGraphProcess
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// The detail pane of a command node (docs/taskview.md): command line, working directory, pid while
/// running, exit status, and its last output lines, scrollable with `[` / `]`.
@Suite struct CommandDetailTests {
    /// A running command `build` (#0) that printed `line 1` ... `line n`.
    func commandModel(lines n: Int, info: CommandInfo) -> DashboardModel {
        var s = EventScript()
        s.add(0, "build")
        _ = s.at(0.5)
        s.start(0)
        for i in 1...n { s.emit(.output(id: NodeID(0), stream: .stdout, text: "line \(i)")) }
        var m = model(s, now: 2)
        m.tree.setCommand(info, for: 0)
        return m
    }

    let running = CommandInfo(commandLine: "make -j4", workingDirectory: "/src", pid: 4242)

    /// The detail pane rows of a 50x24 frame (13 rows: facts, then 4 output lines) (below the rule, above the footer).
    func pane(_ m: inout DashboardModel) -> [String] {
        let lines = frame(&m, 50, 24)
        let rule = lines.firstIndex { $0.hasPrefix("-- detail") }!
        return Array(lines[(rule + 1)..<23]).map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    @Test func paneShowsCommandLineDirectoryPidAndFollowsTheNewestOutput() {
        var m = commandModel(lines: 30, info: running)
        press(&m, .enter)
        #expect(
            pane(&m) == [
                " Name: build",
                " Kind: task   Id: #0   Parent: none",
                " Weight: 1   Progress: 0%",
                " State: executing",
                "   0.000s  added (not executed)",
                "   0.500s  executing",
                " Command: make -j4",
                " Directory: /src   Pid: 4242",
                " Output (last 30 of 30 lines):",
                "   line 27", "   line 28", "   line 29", "   line 30",
            ])
    }

    @Test func paneShowsExitStatusOnceEnded() {
        var m = commandModel(lines: 1, info: CommandInfo(commandLine: "false", exit: "exit status 1"))
        press(&m, .enter)
        let p = pane(&m)
        #expect(p.contains(" Command: false"))
        #expect(p.contains(" Directory: (current)   Exit: exit status 1"))
        #expect(!p.contains { $0.contains("Pid") })
    }

    @Test func bracketsScrollTheOutputAndTheBottomFollowsAgain() {
        var m = commandModel(lines: 30, info: running)
        press(&m, .enter, .char("["))
        #expect(m.view.detailOutputEnd == 25)
        #expect(
            Array(pane(&m).suffix(5)) == [
                " Output (lines 22-25 of 30, ] for newer):",
                "   line 22", "   line 23", "   line 24", "   line 25",
            ])
        // New lines do not move a scrolled pane.
        m.tree.absorb(
            GraphEvent(sequence: 99, time: 2, change: .output(id: NodeID(0), stream: .stdout, text: "line 31")))
        #expect(Array(pane(&m).suffix(2)) == ["   line 24", "   line 25"])
        // Far up stops at the oldest line kept.
        for _ in 0..<10 { press(&m, .char("[")) }
        #expect(m.view.detailOutputEnd == 1)
        #expect(
            Array(pane(&m).suffix(5)) == [
                " Output (lines 1-4 of 31, ] for newer):",
                "   line 1", "   line 2", "   line 3", "   line 4",
            ])
        // Down to the bottom: following again, and the newest line shows.
        for _ in 0..<5 { press(&m, .char("]")) }
        #expect(m.view.detailOutputEnd == 26)
        press(&m, .char("]"))
        #expect(m.view.detailOutputEnd == nil)
        #expect(Array(pane(&m).suffix(2)) == ["   line 30", "   line 31"])
    }

    @Test func scrollingIsResetByMovingOrClosingAndIgnoredWithoutAPane() {
        var m = commandModel(lines: 30, info: running)
        press(&m, .char("["))
        #expect(m.view.detailOutputEnd == nil)
        press(&m, .enter, .char("["), .escape)
        #expect(m.view.detailOutputEnd == nil)
        press(&m, .enter, .char("["), .down)
        #expect(m.view.detailOutputEnd == nil)
    }

    @Test func helpListsTheScrollKeys() {
        let help = KeyTable.helpLines(replay: false)
        #expect(help.contains { $0.hasPrefix("[ ") && $0.contains("scroll the detail output up") })
        #expect(help.contains { $0.hasPrefix("] ") && $0.contains("scroll the detail output down") })
        // A replay binds `]` to the next marker; in the detail pane the reducer scrolls instead.
        #expect(KeyTable.action(for: .char("]"), replay: false) == .detailScrollDown)
        #expect(KeyTable.action(for: .char("]"), replay: true) == .replayNextMarker)
    }
}

/// The live source copies what `CommandRegistry` knows into the model (the renderer stays pure).
@Suite(.timeLimit(.minutes(2))) struct CommandDetailLiveTests {
    @Test func liveSourceRecordsCommandLineAndExitStatus() async throws {
        let text = #"{"kind":"command","name":"c","run":"echo hi; exit 3"}"#
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: scenario, seed: 0)
        let (info, kindLine) = await offPool { () -> (CommandInfo?, String?) in
            let source = LiveGraphSource(
                graph: session.graph, clock: session.clock, root: session.rootID,
                title: "t", speed: 1, start: { session.start() })
            var m = DashboardModel(title: "t")
            source.start(model: &m)
            var waited = 0
            while waited < 6000, m.tree.commands[session.rootID.rawValue]?.exit == nil {
                sleepBriefly()
                waited += 1
                _ = source.tick(realElapsed: 0, model: &m)
            }
            _ = session.waitForCommands()
            let id = session.rootID.rawValue
            let kind = Renderer(ascii: true).detailLines(m.tree, m.displayTree(), row: RowIndex(id)).first {
                $0.hasPrefix("Kind:")
            }
            return (m.tree.commands[id], kind)
        }
        // A command node is a command, in the graph, the log and the detail pane.
        #expect(kindLine == "Kind: command   Id: #0   Parent: none")
        #expect(info?.commandLine == "echo hi; exit 3")
        #expect(info?.exit == "exit status 3")
        #expect(info?.pid == nil)
    }
}

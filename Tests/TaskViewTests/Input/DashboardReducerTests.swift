import TaskGraph
import Testing

@testable import TaskViewCore

@Suite struct DashboardReducerTests {
    @Test func movesThroughRowsInTreeOrder() {
        var m = model(smallBuild())
        #expect(m.view.selection == 0)
        press(&m, .down)
        #expect(m.view.selection == 1)
        press(&m, .char("j"), .char("j"))
        #expect(m.view.selection == 3)
        press(&m, .down)
        #expect(m.view.selection == 4)
        press(&m, .down)
        #expect(m.view.selection == 4) // stays on the last row
        press(&m, .char("k"))
        #expect(m.view.selection == 3)
        press(&m, .char("g"))
        #expect(m.view.selection == 0)
        press(&m, .end)
        #expect(m.view.selection == 4)
        press(&m, .home)
        #expect(m.view.selection == 0)
        press(&m, .pageDown, rows: 3)
        #expect(m.view.selection == 3)
        press(&m, .pageUp, rows: 2)
        #expect(m.view.selection == 1)
    }

    @Test func collapseExpandAndGoToParent() {
        var m = model(smallBuild())
        press(&m, .down) // compile
        press(&m, .left) // collapse it
        #expect(!m.view.isExpanded(1))
        press(&m, .down)
        #expect(m.view.selection == 4) // a.c, b.c hidden
        press(&m, .up, .right)
        #expect(m.view.isExpanded(1))
        press(&m, .down, .char("h"))
        #expect(m.view.selection == 1) // leaf: go to parent
        press(&m, .char("-"))
        #expect(!m.view.isExpanded(1))
        press(&m, .char("+"))
        #expect(m.view.isExpanded(1))
        press(&m, .char("-"), .char("g"), .char("-"), .char("*"))
        #expect(m.view.isExpanded(0) && m.view.isExpanded(1))
    }

    @Test func theRestartQuestionTakesYForTheStepAndAForTheStepAndWhatItNeeds() {
        var m = model(smallBuild())
        m.view.mode = .confirmRestart(row: 4, dependents: 0)
        #expect(press(&m, .char("a")) == [.restart(row: 4, withNeeds: true)])
        #expect(m.view.mode == .normal)
        m.view.mode = .confirmRestart(row: 4, dependents: 0)
        #expect(press(&m, .char("y")) == [.restart(row: 4, withNeeds: false)])
        m.view.mode = .confirmRestart(row: 4, dependents: 0)
        #expect(press(&m, .char("n")).isEmpty)
        #expect(m.view.message == "Not restarted")
    }

    @Test func cancelAsksThenConfirmsWithKeyboardSource() {
        var m = model(smallBuild())
        press(&m, .end) // link, executing
        #expect(press(&m, .char("x")).isEmpty)
        #expect(m.view.mode == .confirmCancel(row: 4))
        let effects = press(&m, .char("y"))
        #expect(effects == [.cancel(node: 4, source: "keyboard")])
        #expect(m.view.mode == .normal)
    }

    @Test func cancelDefaultsToNo() {
        var m = model(smallBuild())
        press(&m, .end, .char("x"))
        #expect(press(&m, .enter).isEmpty)
        #expect(m.view.message == "Not cancelled")
        #expect(!m.view.detailOpen)
    }

    @Test func capitalXCancelsAtOnce() {
        var m = model(smallBuild())
        #expect(press(&m, .char("X")) == [.cancel(node: 0, source: "keyboard")])
    }

    @Test func cancellingASettledNodeSaysNothingToCancel() {
        var m = model(smallBuild())
        press(&m, .down) // compile: succeeded
        #expect(press(&m, .char("x")).isEmpty)
        #expect(m.view.mode == .normal)
        #expect(m.view.message == "compile has finished: nothing to cancel")
    }

    @Test func confirmingACancelOfANodeThatFinishedMeanwhileSaysNothingWasCancelled() {
        var m = model(smallBuild())
        press(&m, .end, .char("x")) // link, executing: asks
        #expect(m.view.mode == .confirmCancel(row: 4))
        m.tree.absorb(
            GraphEvent(
                sequence: 100, time: 5,
                change: .stateChanged(id: NodeID(4), state: .completed, failed: false, message: nil)))
        #expect(press(&m, .char("y")).isEmpty)
        #expect(m.view.mode == .normal)
        #expect(m.view.message == "link had finished: nothing cancelled")
    }

    @Test func theFinishedMessageNamesTheNodeAsItsRowShowsIt() {
        var s = smallBuild()
        s.add(5, "evil\u{1B}[2J\tname", parent: 0)
        s.start(5)
        var m = model(s)
        press(&m, .end, .char("x"))
        #expect(m.view.mode == .confirmCancel(row: 5))
        s.fail(5, "boom")
        m.tree.absorb(s.events.suffix(1))
        #expect(press(&m, .char("y")).isEmpty)
        #expect(m.view.message == "evil?[2J name had finished: nothing cancelled")
    }

    @Test func confirmingACancelOfARunningNodeSaysCancelled() {
        var m = model(smallBuild())
        press(&m, .end, .char("x"))
        #expect(press(&m, .char("y")) == [.cancel(node: 4, source: "keyboard")])
        #expect(m.view.message == "Cancelled link")
    }

    @Test func replayKeysAreReplayEffectsAndCancelIsReadOnly() {
        var m = model(smallBuild())
        m.replay = ReplayState()
        #expect(press(&m, .char(" ")) == [.replay(.playPause)])
        #expect(press(&m, .left) == [.replay(.seekBack)])
        #expect(press(&m, .right) == [.replay(.seekForward)])
        #expect(press(&m, .char("7")) == [.replay(.jump(tenths: 7))])
        #expect(
            press(&m, .char("<"), .char(">"), .char("."), .char(",")) == [
                .replay(.slower), .replay(.faster), .replay(.stepForward), .replay(.stepBack),
            ])
        #expect(press(&m, .char("x")).isEmpty)
        #expect(m.view.message == "A replay is read-only: nothing can be cancelled or restarted")
        #expect(press(&m, .char("X")).isEmpty)
        #expect(!m.view.paused)
        press(&m, .down, .char("h"))
        #expect(!m.view.isExpanded(1)) // h still collapses
    }

    @Test func liveIgnoresReplayOnlyKeys() {
        var m = model(smallBuild())
        #expect(press(&m, .char("7"), .char("<"), .char(".")).isEmpty)
    }

    @Test func pauseFreezesTheDisplayWhileEventsFlow() {
        var m = model(smallBuild())
        press(&m, .char(" "))
        #expect(m.view.paused)
        var more = EventScript()
        more.events = []
        m.tree.absorb(
            GraphEvent(
                sequence: 100, time: 5,
                change: .stateChanged(id: NodeID(4), state: .completed, failed: false, message: nil)))
        #expect(m.tree[4].display == .succeeded) // absorbed
        #expect(m.shown[4].display == .executing) // not shown
        let header = frame(&m, 120, 4)[0]
        #expect(header.contains("PAUSED"))
        press(&m, .char(" "))
        #expect(m.shown[4].display == .succeeded)
        #expect(!frame(&m, 120, 4)[0].contains("PAUSED"))
    }

    @Test func filterShowsMatchesWithAncestorsAndEscClears() {
        var m = model(smallBuild())
        press(&m, .char("/"), .char("B"), .char("."))
        #expect(m.view.filter == "B.")
        #expect(m.view.mode == .filterInput)
        press(&m, .enter)
        #expect(
            frame(&m, 30, 6)[1...4] == [
                "* build                    25%", "`- + compile              100%", "   `- X b.c                 0%",
                "",
            ])
        press(&m, .end)
        #expect(m.view.selection == 3)
        press(&m, .escape)
        #expect(m.view.filter.isEmpty)
        #expect(m.view.selection == 3)
        press(&m, .char("/"), .char("z"), .backspace, .char("q"), .escape)
        #expect(m.view.filter.isEmpty && !m.view.quitRequested)
    }

    @Test func followSelectsNewestExecutingAndMoveEndsIt() {
        var s = smallBuild()
        var m = model(s)
        press(&m, .down, .char("-")) // collapse compile
        press(&m, .char("f"))
        #expect(m.view.follow)
        #expect(m.view.selection == 4) // link started last
        s.add(5, "late", parent: 1)
        s.start(5)
        m.tree.absorb(s.events.suffix(2))
        Reducer.applyFollow(&m)
        #expect(m.view.selection == 5)
        #expect(m.view.isExpanded(1)) // ancestors expanded
        press(&m, .up)
        #expect(!m.view.follow)
        #expect(!frame(&m, 120, 4)[0].contains("FOLLOW"))
    }

    @Test func helpOpensAndAnyKeyCloses() {
        var m = model(smallBuild())
        press(&m, .char("?"))
        #expect(m.view.mode == .help)
        press(&m, .char("j"))
        #expect(m.view.mode == .normal)
        #expect(m.view.selection == 0)
        press(&m, .char("?"), .char("q"))
        #expect(m.view.quitRequested)
    }

    @Test func quitKeys() {
        var m = model(smallBuild())
        press(&m, .ctrlC)
        #expect(m.view.quitRequested)
        var n = model(smallBuild())
        press(&n, .char("q"))
        #expect(n.view.quitRequested)
    }

    @Test func everyKeyInTheSpecTableIsBound() {
        let live: [Key] = [
            .up, .down, .char("k"), .char("j"), .pageUp, .pageDown, .char("g"), .char("G"), .home, .end,
            .left, .char("h"), .right, .char("l"), .char("+"), .char("-"), .char("*"), .enter, .escape,
            .char("x"), .char("X"), .char(" "), .char("/"), .char("f"), .char("?"), .char("q"), .ctrlC,
        ]
        for k in live { #expect(KeyTable.action(for: k, replay: false) != nil, "\(k)") }
        let replay: [Key] =
            [.char(" "), .char("."), .char(","), .left, .right, .char("<"), .char(">"), .char("x"), .char("X")]
            + (0...9).map { .char(Character(String($0))) }
        for k in replay {
            let a = KeyTable.action(for: k, replay: true)
            #expect(a != nil && KeyTable.action(for: k, replay: false) != a, "\(k)")
        }
    }
}

import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

@Suite struct ReplayComfortTests {
    /// The flaky demo's log in a replay source, started and paused at 0.
    func flakyReplay() throws -> (ReplaySource, DashboardModel) {
        let log = try demoLog("flaky", seed: 1).log
        let source = ReplaySource(log: log, title: "replay flaky")
        var m = DashboardModel(title: "replay flaky")
        source.start(model: &m)
        source.perform(.replay(.playPause), key: .char(" "), model: &m)
        m.fixSelection()
        return (source, m)
    }

    func press(_ source: ReplaySource, _ m: inout DashboardModel, _ keys: Key...) {
        for k in keys {
            for e in Reducer.reduce(&m, key: k, rows: 20) { source.perform(e, key: k, model: &m) }
        }
    }

    @Test func bracketsSeekFromMarkerToMarkerAndTheHeaderSaysWhich() throws {
        var (source, m) = try flakyReplay()
        let marks = try #require(m.replay).marks
        #expect(marks.count >= 3)
        #expect(m.replay?.marker == 0)
        press(source, &m, .char("]"))
        #expect(m.replay?.marker == 1)
        #expect(m.replay?.position == marks[0].time)
        #expect(m.replay?.playing == false)
        #expect(m.view.selection == m.displayTree().row(of: NodeIndex(marks[0].node)))
        press(source, &m, .char("]"))
        #expect(m.replay?.marker == 2)
        var rows = frame(&m, 120, 10)
        #expect(rows[0].contains("marker 2/\(marks.count)"))
        press(source, &m, .char("["))
        #expect(m.replay?.marker == 1)
        #expect(m.replay?.position == marks[0].time)
        press(source, &m, .char("["))
        #expect(m.view.message == "no more markers")
        // The last marker is the root settling.
        press(source, &m, .char("G"))
        for _ in 0..<marks.count { press(source, &m, .char("]")) }
        #expect(m.replay?.marker == marks.count)
        #expect(marks.last!.rootSettled)
        rows = frame(&m, 120, 10)
        #expect(rows[0].contains("marker \(marks.count)/\(marks.count)"))
    }

    @Test func nSeeksToTheNextMomentANodeFailed() throws {
        var (source, m) = try flakyReplay()
        press(source, &m, .char("n"))
        let sel = m.displayTree().content(m.view.selection)
        #expect(m.shown[sel].display == .failed)
        let first = try #require(m.replay).position
        press(source, &m, .char("n"))
        #expect(try #require(m.replay).position > first)
        #expect(m.shown[m.displayTree().content(m.view.selection)].display == .failed)
        press(source, &m, .char("N"))
        #expect(m.replay?.position == first)
        press(source, &m, .char("N"))
        #expect(m.view.message == "no more failures")
    }

    @Test func tSeeksToATimeAndFFindsTheMomentANodeAppeared() throws {
        var (source, m) = try flakyReplay()
        press(source, &m, .char("t"), .char("5"), .char("s"), .enter)
        #expect(m.replay?.position == 5)
        press(source, &m, .char("t"), .char("5"), .char("0"), .char("%"), .enter)
        let half = try #require(m.replay)
        #expect(half.position == half.duration / 2)
        press(source, &m, .char("t"), .char("0"), .enter)
        press(source, &m, .char("F"), .char("a"), .char("u"), .char("d"), .enter)
        #expect(m.shown[m.displayTree().content(m.view.selection)].name == "audit")
        #expect(m.view.message == "found aud at 2.0s")
        #expect(m.replay?.position == 2)
        press(source, &m, .char("F"), .char("z"), .char("z"), .char("z"), .enter)
        #expect(m.view.message == "not found after here: zzz")
    }

    @Test func timelineStripShowsPositionAndMarkers() {
        var m = DashboardModel(title: "replay x")
        m.replay = ReplayState()
        m.replay?.duration = 10
        m.replay?.position = 5
        m.replay?.marks = [
            ReplayMark(event: 3, time: 2, state: .failed, node: 1, rootSettled: false),
            ReplayMark(event: 5, time: 7.5, state: .cancelled, node: 2, rootSettled: false),
            ReplayMark(event: 9, time: 10, state: .failed, node: 0, rootSettled: true),
        ]
        m.replay?.marker = 1
        let rows = frame(&m, 20, 8, ascii: false)
        #expect(rows[0].hasPrefix(" replay x  0.0s  replay 5.0s/10.0s x1  marker 1/3".prefix(20)))
        #expect(rows[1] == "━━━━✗━━━━━┃────⊘───✗")
        #expect(frame(&m, 20, 8)[1] == "====X=====|----/---X")
        m.replay?.position = 2
        let grid = Renderer(ascii: false).render(m, width: 20, height: 8).grid
        #expect(grid[4, 1].scalar == "✗")
        #expect(grid[4, 1].style.reverse) // the position on a marker
        // Too small a screen: no strip, the tree keeps its rows.
        #expect(Layout(width: 20, height: 7, detailOpen: false, timeline: true).timelineRows == 0)
    }
}

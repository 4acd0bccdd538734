import TaskGraph
import Testing

@testable import TaskViewCore

/// Plain mode's lines (docs/taskview.md): state changes and output lines, the last 1,000 kept for
/// printing the missed ones first, formatted as headless prints them.
@Suite struct PlainFeedTests {
    func out(_ text: String, _ stream: OutputStreamName = .stdout) -> GraphEvent {
        GraphEvent(sequence: 1, time: 1.5, change: .output(id: NodeID(0), stream: stream, text: text))
    }

    @Test func keepsStateChangesAndOutputLinesFormattedAsHeadless() {
        var s = EventScript()
        s.add(0, "build")
        _ = s.at(0.25)
        s.start(0)
        let feed = PlainFeed()
        feed.record(s.events)
        feed.record([out("hello"), out("oops", .stderr)])
        var tree = TreeModel()
        tree.absorb(s.events)
        #expect(feed.total == 3)
        let (events, dropped) = feed.events(after: 0)
        #expect(dropped == 0)
        #expect(
            events.compactMap { PlainFeed.line(for: $0, in: tree) } == [
                "[0.250] #0 build: executing",
                "[1.500] #0 build | hello",
                "[1.500] #0 build | ! oops",
            ])
        #expect(feed.events(after: 3).events.isEmpty)
        #expect(feed.events(after: 2).events.count == 1)
    }

    @Test func keepsTheLastThousandAndSaysHowManyWereDropped() {
        let feed = PlainFeed()
        feed.record((1...2500).map { out("line \($0)") })
        #expect(feed.total == 2500)
        let all = feed.events(after: 0)
        #expect(all.events.count == PlainFeed.capacity)
        #expect(all.dropped == 1500)
        if case .output(_, _, let text) = all.events.first?.change { #expect(text == "line 1501") }
        if case .output(_, _, let text) = all.events.last?.change { #expect(text == "line 2500") }
        let late = feed.events(after: 2400)
        #expect(late.events.count == 100 && late.dropped == 0)
    }

    @Test func aBatchLongerThanTheRingKeepsItsLastPrintableEventsInOrder() {
        let feed = PlainFeed()
        feed.record((1...500).map { out("line \($0)") })
        // Events plain mode does not print (progress, not executed) are neither kept nor counted.
        var batch: [GraphEvent] = [
            GraphEvent(
                sequence: 1, time: 0,
                change: .stateChanged(id: NodeID(0), state: .notExecuted, failed: false, message: nil))
        ]
        for k in 501...1700 {
            batch.append(out("line \(k)"))
            batch.append(
                GraphEvent(sequence: 1, time: 0, change: .progress(id: NodeID(0), progress: TaskProgress(0.5))))
        }
        feed.record(batch)
        #expect(feed.total == 1700)
        let all = feed.events(after: 0)
        #expect(all.events.count == PlainFeed.capacity && all.dropped == 700)
        let texts = all.events.compactMap { e -> String? in
            if case .output(_, _, let text) = e.change { return text }
            return nil
        }
        #expect(texts == (701...1700).map { "line \($0)" })
        #expect(feed.events(after: 1699).events.count == 1)
    }

    @Test func pIsALiveKeyThatAsksForPlainMode() {
        var m = DashboardModel(title: "t")
        #expect(KeyTable.action(for: .char("p"), replay: false) == .plainMode)
        #expect(KeyTable.action(for: .char("p"), replay: true) == nil)
        #expect(press(&m, .char("p")) == [.plainMode])
        #expect(
            KeyTable.helpLines(replay: false).contains {
                $0.hasPrefix("p ") && $0.contains("plain mode: lines in the terminal (any key returns)")
            })
    }
}

import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// Sources that get events from other threads wake the dashboard loop through a
/// descriptor, so data is drawn at once and an idle dashboard does not poll at frame rate.
@Suite struct WakeTests {
    static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    static func event(_ seq: UInt64) -> GraphEvent {
        GraphEvent(sequence: seq, time: 0, change: .progress(id: NodeID(1), progress: TaskProgress(0.5)))
    }

    @Test func aWakeableInboxIsReadableExactlyWhileEventsWait() throws {
        let inbox = EventInbox(root: NodeID(0), wakeable: true)
        let fd = try #require(inbox.wakeDescriptor)
        #expect(!Self.readable(fd))
        inbox.receive(Self.event(1))
        inbox.receive(Self.event(2))
        #expect(Self.readable(fd))
        #expect(inbox.drain().count == 2)
        #expect(!Self.readable(fd))
        inbox.receive(Self.event(3))
        #expect(Self.readable(fd))
        #expect(EventInbox(root: NodeID(0)).wakeDescriptor == nil)
    }

    @Test func aFloodOfOutputPastTheLimitArrivesWholeAndInOrder() async {
        let inbox = EventInbox(root: NodeID(0), wakeable: true)
        let n = 2 * EventInbox.floodLimit + 7
        let sender = Task.detached {
            for k in 1...n {
                inbox.receive(
                    GraphEvent(
                        sequence: UInt64(k), time: 0, change: .output(id: NodeID(1), stream: .stdout, text: "x")))
            }
        }
        var got: [UInt64] = []
        // Every event arrives (a held-back sender goes on), so this loop ends.
        while got.count < n {
            let batch = inbox.drain()
            got += batch.map(\.sequence)
            if batch.isEmpty { await Task.yield() }
        }
        await sender.value
        #expect(got.count == n)
        #expect(got == (1...UInt64(n)).map { $0 })
    }

    @Test func aLiveSourceOnRealTimeOffersItsInboxAndTicksOnlyForTheClock() {
        let graph = Graph(clock: MonotonicClock())
        let task = GraphTask<Void, Never>.delay(seconds: 60, name: "wait", graph: graph)
        let source = LiveGraphSource(
            graph: graph, clock: MonotonicClock(), root: task.id, title: "t", speed: 1,
            start: { task.execute() })
        var m = DashboardModel(title: "t")
        source.start(model: &m)
        #expect(source.wakeDescriptors.count == 1)
        let wait = source.secondsUntilNextTick(realElapsed: 0, model: m) ?? 0
        #expect(wait > 0 && wait <= 0.1) // the header's tenths, not 30 frames a second
        graph.cancel(task.id, source: "test")
        if let fd = source.wakeDescriptors.first { #expect(Self.readable(fd)) } // the cancel's events
        _ = source.tick(realElapsed: 0, model: &m)
        #expect(m.outcome == .cancelled)
        #expect(source.secondsUntilNextTick(realElapsed: 0, model: m) == nil)
    }

    @Test func underAFloodATickAbsorbsABoundedBatchAndAsksForTheNextAtOnce() {
        let graph = Graph(clock: MonotonicClock())
        let task = GraphTask<Void, Never>.delay(seconds: 60, name: "flood", graph: graph)
        let source = LiveGraphSource(
            graph: graph, clock: MonotonicClock(), root: task.id, title: "t", speed: 1,
            start: { task.execute() })
        var m = DashboardModel(title: "t")
        source.start(model: &m)
        let lines = 2 * LiveGraphSource.eventsPerTick + 5
        for k in 0..<lines { graph.reportOutput(task.id, stream: .stdout, text: "line \(k)") }
        graph.flushObservers()
        var ticks = 0
        while (m.tree.outputs[task.id.rawValue]?.total ?? 0) < lines && ticks < 10 {
            _ = source.tick(realElapsed: 0, model: &m)
            ticks += 1
            let total = m.tree.outputs[task.id.rawValue]?.total ?? 0
            #expect(total == min(lines, ticks * LiveGraphSource.eventsPerTick))
            if total < lines { #expect(source.secondsUntilNextTick(realElapsed: 0, model: m) == 0) }
        }
        #expect(ticks == 3)
        #expect(m.tree.outputs[task.id.rawValue]?.lines.last?.text == "line \(lines - 1)")
        #expect((source.secondsUntilNextTick(realElapsed: 0, model: m) ?? 0) > 0)
        graph.cancel(task.id, source: "test")
        _ = source.tick(realElapsed: 0, model: &m)
        #expect(m.outcome == .cancelled)
    }

    @Test func aLiveSourceOnAVirtualClockNeedsNoDescriptor() {
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let task = GraphTask<Void, Never>.delay(seconds: 1, name: "wait", graph: graph)
        let source = LiveGraphSource(
            graph: graph, clock: clock, root: task.id, title: "t", speed: 1,
            start: { task.execute() })
        #expect(source.wakeDescriptors.isEmpty)
    }

    @Test func theHeaderClockSaysWhenItsTextChanges() {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
        #expect(close(Format.secondsUntilDurationChanges(0), 0.05)) // "0.0s" -> "0.1s" at 0.05
        #expect(close(Format.secondsUntilDurationChanges(1.04), 1.0 / 30)) // never under a frame
        #expect(close(Format.secondsUntilDurationChanges(75.5), 0.5)) // "1m15s" -> "1m16s"
        #expect(close(Format.secondsUntilDurationChanges(3600), 60)) // "1h00m" -> "1h01m"
        for t in [0.0, 0.31, 12.0, 59.9, 61.2, 3599.5, 7300.0] {
            let wait = Format.secondsUntilDurationChanges(t)
            if wait > 1.0 / 30 {
                #expect(Format.duration(t + wait - 0.001) == Format.duration(t))
            }
            #expect(Format.duration(t + wait + 0.001) != Format.duration(t))
        }
    }
}

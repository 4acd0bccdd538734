import TaskGraph
import Testing

@testable import TaskViewCore

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

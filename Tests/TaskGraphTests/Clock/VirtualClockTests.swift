import Testing

@testable import TaskGraph

/// VirtualClock and determinism of graphs driven by it.
@Suite struct VirtualClockTests {
    @Test func nextDueAndRunNext() {
        let clock = VirtualClock()
        #expect(clock.nextDue == nil)
        #expect(clock.runNext() == false)
        let log = Recorder<String>()
        clock.schedule(after: 2) { log.add("two at \(clock.now)") }
        clock.schedule(after: 1) { log.add("one at \(clock.now)") }
        let cancelled = clock.schedule(after: 0.5) { log.add("cancelled") }
        cancelled.cancel()
        #expect(clock.nextDue == 1)
        #expect(clock.now == 0)
        #expect(clock.runNext())
        #expect(clock.now == 1)
        #expect(log.all == ["one at 1.0"])
        #expect(clock.nextDue == 2)
        #expect(clock.runNext())
        #expect(clock.runNext() == false)
        #expect(log.all == ["one at 1.0", "two at 2.0"])
        #expect(clock.nextDue == nil)
    }

    @Test func advanceRunsTimersInOrderAtTheirDueTimes() {
        let clock = VirtualClock()
        let log = Recorder<String>()
        clock.schedule(after: 3) { log.add("c \(clock.now)") }
        clock.schedule(after: 1) { log.add("a \(clock.now)") }
        clock.schedule(after: 2) {
            log.add("b \(clock.now)")
            // Scheduled by a timer, due within the span: runs too.
            clock.schedule(after: 0.5) { log.add("b2 \(clock.now)") }
        }
        clock.schedule(after: 7) { log.add("late") }
        clock.advance(by: 5)
        #expect(log.all == ["a 1.0", "b 2.0", "b2 2.5", "c 3.0"])
        #expect(clock.now == 5)
        #expect(clock.nextDue == 7)
    }

    @Test func sameTimeTimersRunInSchedulingOrder() {
        let clock = VirtualClock()
        let log = Recorder<Int>()
        for i in 0..<20 { clock.schedule(after: 1) { log.add(i) } }
        clock.schedule(after: 0) { log.add(-1) }
        clock.advance(by: 1)
        #expect(log.all == [-1] + Array(0..<20))
    }

    @Test func timeIsKeptInNanoseconds() {
        let clock = VirtualClock()
        clock.advance(by: 0.1)
        clock.advance(by: 0.2)
        #expect(clock.now == 0.3)
        #expect("\(clock.now)" == "0.3")
        let at = Locked<Double>(0)
        clock.schedule(after: 0.1) { at.withLock { $0 = clock.now } }
        clock.runUntilIdle()
        #expect(at.get == 0.4)
    }

    @Test func runUntilIdleRunsTimersScheduledByTimers() {
        let clock = VirtualClock()
        let n = Counter()
        @Sendable func again() {
            n.bump()
            if n.value < 5 { clock.schedule(after: 1) { again() } }
        }
        clock.schedule(after: 1) { again() }
        clock.runUntilIdle()
        #expect(n.value == 5)
        #expect(clock.now == 5)
    }

    /// One program with every kind of composite, timers, failures and cancels.
    static func program() -> [GraphEvent] {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let a = timed(1, after: 0.1, name: "a", graph: g)
        let b = stepped([0.25, 0.5], value: 2, name: "b", graph: g)
        let c = timed(3, after: 0.3, name: "c", graph: g, fail: true)
        let d = timed(4, after: 5, name: "d", graph: g)
        let seq = GraphTask.sequential([a, b], name: "seq")
        let settled = GraphTask.allSettled([c, d], name: "settled")
        let slow = timed(9, after: 9, name: "slow", graph: g).timeout(seconds: 1.5)
        let chain = GraphTask<Int, TestError>.succeed(1, graph: g).then { v in timed(v + 1, after: 0.2, graph: g) }
        seq.execute()
        settled.execute()
        slow.execute()
        chain.execute()
        clock.advance(by: 0.7)
        d.cancel()
        clock.runUntilIdle()
        log.observation.cancel()
        return log.events
    }

    @Test func sameProgramSameEvents() {
        let first = Self.program()
        let second = Self.program()
        #expect(first.count > 30)
        #expect(first == second)
        #expect(first.last?.time == 3.1) // b: started at 0.1, steps at 1.1 and 2.1, done at 3.1
    }
}

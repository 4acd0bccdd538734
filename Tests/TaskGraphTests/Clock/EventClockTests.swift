import Dispatch
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Observed events' times on a `MonotonicClock` come from the cycle counter (`EventClock`):
/// they must still be `CLOCK_MONOTONIC` seconds, never go backwards, and stay close to
/// `clock_gettime` after calibration and across anchors.
@Suite struct EventClockTests {
    private func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Reads `clock` for 0.1 s of real time (long enough for calibration, 20 ms, and many
    /// re-anchors, 1 ms each, however fast the machine is), handing each reading to `each`;
    /// returns how far the farthest reading was from the `clock_gettime` readings around it.
    private func worstOffset(_ clock: inout EventClock, _ each: (Double) -> Void = { _ in }) -> Double {
        let start = monotonic()
        var worst = 0.0
        while monotonic() - start < 0.1 {
            for _ in 0..<200 {
                let before = monotonic()
                let t = clock.now()
                let after = monotonic()
                each(t)
                // Within [before, after] up to the interpolation's error; a clamp to the last
                // reading may hold it above `after` by as much.
                worst = max(worst, t < before ? before - t : (t > after ? t - after : 0))
            }
        }
        return worst
    }

    @Test func readingsFollowClockGettimeAndNeverGoBack() {
        var clock = EventClock()
        var last = 0.0
        var reads = 0
        let worst = worstOffset(&clock) { t in
            #expect(t >= last, "went back from \(last) to \(t)")
            last = t
            reads += 1
        }
        #expect(reads > 1000)
        #expect(worst < 0.001, "a reading was \(worst) s away from clock_gettime")
    }

    @Test func anAnchorTakenAcrossAPauseIsNotKept() {
        // Where the counter is not trusted every reading is `clock_gettime`: nothing to anchor.
        guard EventClock.counterIsTrusted else { return }
        // The first anchors pause 5 ms between reading the clock and the counter, as a thread
        // preempted there would: kept, each would put the next millisecond's times 5 ms back.
        let pauses = Locked(0)
        var clock = EventClock(readClock: {
            let seconds = MonotonicClock().now
            if pauses.withLock({ p in
                p += 1
                return p <= 5
            }) {
                usleep(5_000)
            }
            return seconds
        })
        let worst = worstOffset(&clock)
        #expect(pauses.withLock { $0 } > 5)
        #expect(worst < 0.001, "a reading was \(worst) s away from clock_gettime")
    }

    @Test func observedEventTimesAreMonotonicSecondsInOrder() {
        let graph = Graph()
        let times = Locked<[Double]>([])
        let observation = graph.observe { event in times.withLock { $0.append(event.time) } }
        let start = monotonic()
        // Events for at least 50 ms, so the calibrated path is taken.
        while monotonic() - start < 0.05 {
            for _ in 0..<100 {
                let task = GraphTask<Int, TestError>(graph: graph) { s, _ in s(1) }
                task.execute()
            }
        }
        let end = monotonic()
        observation.cancel()
        let all = times.withLock { $0 }
        #expect(all.count >= 300)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 <= $1 }, "event times go back")
        #expect(
            all.first! >= start - 0.001 && all.last! <= end + 0.001,
            "times \(all.first!)...\(all.last!) outside \(start)...\(end)")
    }

    @Test func timesStayInSequenceOrderWhenThreadsReadTheCounterBeforeTheLock() {
        let graph = Graph()
        let events = Locked<[(UInt64, Double)]>([])
        let observation = graph.observe { event in events.withLock { $0.append((event.sequence, event.time)) } }
        // Each thread reads the counter before it waits for the event lock, so a reading can
        // be older than the event numbered before it: the time given is then that event's.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let start = monotonic()
            while monotonic() - start < 0.05 {
                for _ in 0..<100 { GraphTask<Int, TestError>(graph: graph) { s, _ in s(1) }.execute() }
            }
        }
        observation.cancel()
        let all = events.withLock { $0 }.sorted { $0.0 < $1.0 }
        #expect(all.count >= 1_200)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.1 <= $1.1 }, "event times go back in sequence order")
    }
}

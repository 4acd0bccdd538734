import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// Leaf tasks: the three closure forms, succeed/fail/delay, asyncAfter, execute, onCancel.
@Suite struct LeafTaskTests {
    @Test func twoClosureFormIsLazyAndSucceeds() {
        let (g, _) = virtualGraph()
        let ran = Counter()
        let t = GraphTask<Int, TestError>(graph: g) { succeed, _ in
            ran.bump()
            succeed(42)
        }
        #expect(ran.value == 0)
        #expect(t.state == .notExecuted)
        #expect(t.outcome == nil)
        #expect(t.name == "task")
        #expect(g.snapshot()[t.id]?.kind == "task")
        t.execute()
        #expect(ran.value == 1)
        #expect(t.state == .completed)
        #expect(val(t) == 42)
    }

    @Test func threeClosureFormReportsProgress() {
        let (g, _) = virtualGraph()
        let seen = Recorder<TaskProgress>()
        let t = GraphTask<Int, TestError>(name: "p", graph: g) { succeed, _, progress in
            progress(TaskProgress(0.3))
            progress(TaskProgress(0.3)) // no change: not reported
            progress(TaskProgress(0.3, info: "phase")) // info changed: reported
            progress(TaskProgress(0.6, info: "phase"))
            succeed(1)
        }
        t.progress { seen.add($0) }.execute()
        #expect(seen.all.map(\.fraction) == [0.3, 0.3, 0.6, 1.0])
        #expect(seen.all.map(\.info) == [nil, "phase", "phase", "phase"])
        #expect(t.currentProgress.fraction == 1)
        #expect(t.name == "p")
    }

    @Test func fourClosureFormGetsItsOwnTask() {
        let (g, _) = virtualGraph()
        let same = Recorder<Bool>()
        let box = Locked<GraphTask<Int, TestError>?>(nil)
        let t = GraphTask<Int, TestError>(graph: g) { task, succeed, _, _ in
            same.add(task === box.get)
            same.add(task.isCancelled)
            succeed(7)
        }
        box.withLock { $0 = t }
        t.execute()
        #expect(same.all == [true, false])
        #expect(val(t) == 7)
    }

    @Test func fourClosureFormCanAbortOnCancel() {
        let (g, clock) = virtualGraph()
        let aborted = Counter()
        let t = GraphTask<Int, TestError>(graph: g) { task, succeed, _, _ in
            let timer = g.clock.schedule(after: 5) { succeed(1) }
            task.onCancel {
                aborted.bump()
                timer.cancel()
            }
        }
        t.execute()
        t.cancel()
        #expect(clock.nextDue == nil)
        clock.runUntilIdle()
        #expect(aborted.value == 1)
        #expect(t.state == .cancelled)
        #expect(t.outcome == nil)
    }

    @Test func succeedAndFailConstructors() {
        let (g, _) = virtualGraph()
        let s = GraphTask<String, TestError>.succeed("ok", graph: g)
        let f = GraphTask<String, TestError>.fail(TestError(code: 3), name: "bad", graph: g)
        #expect(s.state == .notExecuted && f.state == .notExecuted)
        s.execute()
        f.execute()
        #expect(val(s) == "ok")
        #expect(f.outcome.map { if case .failure(let e) = $0 { return e.code } else { return -1 } } == 3)
        let node = g.snapshot()[f.id]
        #expect(node?.state == .completed)
        #expect(node?.failed == true)
        #expect(node?.message == "test error 3")
        #expect(node?.name == "bad")
        #expect(g.snapshot()[s.id]?.failed == false)
        #expect(g.snapshot()[s.id]?.message == nil)
    }

    @Test func delayOnVirtualClock() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let d = GraphTask<Void, Never>.delay(seconds: 0.5, graph: g)
        clock.advance(by: 1) // nothing runs before execute
        #expect(d.state == .notExecuted)
        d.execute()
        clock.advance(by: 0.4)
        #expect(d.state == .executing)
        clock.advance(by: 0.1)
        #expect(d.state == .completed)
        #expect(g.snapshot()[d.id]?.kind == "delay")
        let completedAt = log.events.first {
            if case .stateChanged(d.id, .completed, _, _) = $0.change { return true } else { return false }
        }?.time
        #expect(completedAt == 1.5)
    }

    @Test func asyncAfterReturnsATaskOnRealTime() async {
        let fired = Counter()
        let t = DispatchQueue.global().asyncAfter(deadline: .now() + 0.05)
        #expect(t.state == .notExecuted)
        #expect(Graph.shared.snapshot()[t.id]?.kind != nil)
        t.success { fired.bump() }.execute()
        #expect(await eventuallyAsync { fired.value == 1 })
        #expect(t.state == .completed)
        #expect(fired.value == 1)
    }

    @Test func executeIsIdempotent() {
        let (g, clock) = virtualGraph()
        let ran = Counter()
        let t = GraphTask<Int, TestError>(graph: g) { _, succeed, _, _ in
            ran.bump()
            g.clock.schedule(after: 1) { succeed(1) }
        }
        #expect(t.execute() === t)
        t.execute()
        clock.runUntilIdle()
        t.execute()
        #expect(ran.value == 1)
        #expect(t.state == .completed)
    }

    @Test func onlyTheFirstSettleCounts() {
        let (g, _) = virtualGraph()
        let values = Recorder<Int>()
        let errors = Recorder<TestError>()
        let t = GraphTask<Int, TestError>(graph: g) { succeed, fail in
            succeed(1)
            fail(TestError())
            succeed(2)
        }
        t.success { values.add($0) }.failure { errors.add($0) }.execute()
        #expect(values.all == [1])
        #expect(errors.all.isEmpty)
        #expect(val(t) == 1)
    }

    @Test func callsAfterCancellationAreIgnored() {
        let (g, _) = virtualGraph()
        let settle = Locked<(@Sendable (Int) -> Void)?>(nil)
        let prog = Locked<(@Sendable (TaskProgress) -> Void)?>(nil)
        let events = Recorder<String>()
        let t = GraphTask<Int, TestError>(graph: g) { s, _, p in
            settle.withLock { $0 = s }
            prog.withLock { $0 = p }
        }
        t.success { _ in events.add("success") }.completion { _ in events.add("completion") }
            .progress { events.add("progress \($0.fraction)") }.execute()
        t.cancel()
        prog.get?(TaskProgress(0.5))
        settle.get?(1)
        #expect(events.all.isEmpty)
        #expect(t.state == .cancelled)
        #expect(t.outcome == nil)
    }

    @Test func onCancelRunsOnce() {
        let (g, _) = virtualGraph()
        let n = Counter()
        let t = forever(graph: g)
        t.onCancel { n.bump() }.execute()
        t.cancel()
        t.cancel()
        g.cancel(t.id)
        #expect(n.value == 1)
        let late = Counter()
        t.onCancel { late.bump() } // already cancelled: at once
        #expect(late.value == 1)
    }

    @Test func onCancelNeverRunsForACompletedTask() {
        let (g, _) = virtualGraph()
        let n = Counter()
        let t = GraphTask<Int, TestError>.succeed(1, graph: g)
        t.onCancel { n.bump() }.execute()
        t.cancel()
        t.onCancel { n.bump() }
        #expect(n.value == 0)
        #expect(t.state == .completed)
    }

    @Test func cancellingANotExecutedTaskMeansItNeverRuns() {
        let (g, _) = virtualGraph()
        let ran = Counter()
        let cancelled = Counter()
        let t = GraphTask<Int, TestError>(graph: g) { s, _ in
            ran.bump()
            s(1)
        }
        t.onCancel { cancelled.bump() }
        t.cancel()
        t.execute()
        #expect(ran.value == 0)
        #expect(cancelled.value == 1)
        #expect(t.state == .cancelled)
        #expect(t.isCancelled)
    }

    @Test func weightDefaultsAndSetters() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let t = GraphTask<Int, TestError>.succeed(1, graph: g)
        #expect(t.weight == 1)
        #expect(t.setWeight(2.5) === t)
        #expect(t.weight == 2.5)
        t.weight = 0
        #expect(t.weight == 0)
        #expect(g.snapshot()[t.id]?.weight == 0)
        let weights = log.changes.compactMap { if case .weightChanged(_, let w) = $0 { return w } else { return nil } }
        #expect(weights == [2.5, 0])
    }

    @Test func aRootRunsItsBodyOnTheThreadThatCallsExecute() {
        let (g, _) = virtualGraph()
        let same = Recorder<Bool>()
        let caller = Locked<pthread_t?>(nil)
        let t = GraphTask<Int, TestError>(graph: g) { s, _ in
            same.add(pthread_equal(pthread_self(), caller.get!) != 0)
            s(1)
        }
        let seq = GraphTask.sequential([t])
        let done = DispatchSemaphore(value: 0)
        Thread {
            caller.withLock { $0 = pthread_self() }
            seq.execute()
            done.signal()
        }.start()
        done.wait()
        #expect(same.all == [true])
    }
}

import Dispatch
import Foundation
import TaskGraph
import Testing

/// Bodies that run elsewhere: `async` bodies as Swift tasks, closure bodies on a queue.
@Suite struct BodiesElsewhereTests {
    /// Counts bodies running at once and remembers the most seen.
    final class Overlap: Sendable {
        private let state = Locked((now: 0, most: 0))
        func enter() {
            state.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
        }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.get.most }
    }

    @Test func concurrentAsyncBodiesRunInParallel() async throws {
        let g = Graph()
        let overlap = Overlap()
        let tasks = (0..<4).map { i in
            GraphTask<Int, Never>.async(name: "sleep \(i)", graph: g) { _ in
                overlap.enter()
                try? await Task.sleep(nanoseconds: 300_000_000)
                overlap.leave()
                return i
            }
        }
        let all = GraphTask.concurrent(tasks, name: "all")
        let values = try await all.value
        #expect(values == [0, 1, 2, 3])
        #expect(overlap.most == 4) // all four were running at once (run inline: 1)
        #expect(g.snapshot()[all.id]?.state == .completed)
        #expect(g.snapshot()[tasks[0].id]?.kind == "task")
    }

    @Test func asyncBodyReportsProgressAndFails() async {
        let g = Graph()
        let seen = Recorder<Double>()
        let t = GraphTask<Int, TestError>.async(name: "fails", graph: g) { progress async throws(TestError) -> Int in
            progress(TaskProgress(0.5, info: "half"))
            throw TestError(code: 9)
        }
        t.progress { seen.add($0.fraction) }.execute()
        #expect(await eventuallyAsync { t.state == .completed })
        #expect(seen.all == [0.5])
        guard case .failure(let e)? = t.outcome else {
            Issue.record("not failed")
            return
        }
        #expect(e.code == 9)
        #expect(g.snapshot()[t.id]?.progress.info == "half")
    }

    @Test func cancellingTheGraphTaskCancelsTheSwiftTask() async {
        let g = Graph()
        let started = Counter()
        let swiftCancelled = Counter()
        let t = GraphTask<Int, Never>.async(name: "long", graph: g) { _ in
            await withTaskCancellationHandler {
                started.bump()
                while !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
                return 0
            } onCancel: {
                swiftCancelled.bump()
            }
        }
        t.execute()
        #expect(await eventuallyAsync { started.value == 1 })
        t.cancel()
        #expect(await eventuallyAsync { swiftCancelled.value == 1 })
        #expect(t.state == .cancelled)
        #expect(t.cancelSource == "api")
        #expect(t.outcome == nil) // the body's late value is ignored
    }

    @Test func aBodyThatThrowsCancellationErrorCancelsTheGraphTask() async {
        let g = Graph()
        let t = GraphTask<Int, any Error>.async(name: "gives up", graph: g) { _ in
            throw CancellationError()
        }
        t.execute()
        #expect(await eventuallyAsync { t.state == .cancelled })
    }

    @Test func aBodyWithAQueueRunsThere() async {
        let g = Graph()
        let queue = DispatchQueue(label: "taskgraph.test.bodies")
        let ran = Counter()
        queue.suspend()
        let t = GraphTask<Int, TestError>(name: "on queue", graph: g, queue: queue) { succeed, _ in
            dispatchPrecondition(condition: .onQueue(queue))
            ran.bump()
            succeed(1)
        }
        t.execute()
        #expect(ran.value == 0) // dispatched, not run inside execute()
        #expect(t.state == .executing)
        queue.resume()
        #expect(await eventuallyAsync { t.state == .completed })
        #expect(ran.value == 1)
        #expect(val(t) == 1)

        let s = GraphTask<Int, TestError>.succeed(2, graph: g, queue: queue).execute()
        #expect(await eventuallyAsync { val(s) == 2 })
    }

    @Test func aDelayWithAQueueStartsAndSucceedsThere() async {
        let (g, clock) = virtualGraph()
        let queue = DispatchQueue(label: "taskgraph.test.delay")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let onQueue = Locked<[Int?]>([])
        queue.suspend()
        let d = GraphTask<Void, Never>.delay(seconds: 2, name: "wait", graph: g, queue: queue)
            .success { onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key)) } }
            .execute()
        #expect(clock.nextDue == nil) // the timer is started on the queue, not in execute()
        queue.resume()
        #expect(await eventuallyAsync { clock.nextDue == 2 })
        clock.runUntilIdle()
        #expect(await eventuallyAsync { d.state == .completed })
        #expect(await eventuallyAsync { onQueue.get == [7] }) // the handler ran on the queue
    }
}

/// `maxConcurrent`: at most that many subtasks execute at once; the rest wait, in order.
@Suite struct MaxConcurrentTests {
    /// The most leaves of `ids` executing at once, and the order they started, from the events.
    static func replay(_ log: EventLog, _ ids: [NodeID]) -> (most: Int, started: [Int]) {
        var now = 0
        var most = 0
        var started: [Int] = []
        for case .stateChanged(let id, let state, _, _) in log.changes {
            guard let i = ids.firstIndex(of: id) else { continue }
            if state == .executing {
                now += 1
                most = max(most, now)
                started.append(i)
            } else {
                now -= 1
            }
        }
        return (most, started)
    }

    @Test func twoOfFiveAtATimeInOrder() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let tasks = [3.0, 1, 2, 1, 1].enumerated().map { i, d in timed(i, after: d, name: "t\(i)", graph: g) }
        let all = GraphTask.concurrent(tasks, maxConcurrent: 2, name: "limited").execute()
        #expect(tasks.map(\.state) == [.executing, .executing, .notExecuted, .notExecuted, .notExecuted])
        clock.runUntilIdle()
        #expect(val(all) == [0, 1, 2, 3, 4])
        let (most, started) = Self.replay(log, tasks.map(\.id))
        #expect(most == 2)
        #expect(started == [0, 1, 2, 3, 4])
        #expect(clock.now == 4) // t0 (0-3 s) beside t1 (0-1), t2 (1-3); then t3 and t4 (3-4)
    }

    @Test func allSettledWithALimitAndFailFastLeavesTheWaitingUnrun() {
        let (g, clock) = virtualGraph()
        let settled = GraphTask.allSettled(
            [
                timed(1, after: 1, graph: g, fail: true), timed(2, after: 1, graph: g),
                timed(3, after: 1, graph: g),
            ], maxConcurrent: 1
        ).execute()
        clock.runUntilIdle()
        #expect(clock.now == 3) // one after another
        guard case .success(let outcomes)? = settled.outcome else {
            Issue.record("not settled")
            return
        }
        #expect(outcomes.count == 3)

        let waiting = timed(9, after: 1, name: "waiting", graph: g)
        let failing = timed(0, after: 1, name: "failing", graph: g, fail: true)
        let group = GraphTask.concurrent([failing, waiting], maxConcurrent: 1).execute()
        clock.runUntilIdle()
        #expect(group.state == .completed)
        #expect(waiting.state == .notExecuted) // never ran
    }
}

import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// Promises/A+ handler order (TasksAndTheirRules, "Handlers"): a handler added while the
/// task's handlers run goes after those before it (2.2.6); a derived task takes its turn
/// among its source's handlers from the moment it is executed.
@Suite struct HandlerOrderTests {
    @Test func handlerAddedInsideAHandlerRunsAfterTheEarlierOnes() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(1, after: 1, graph: g)
        t.success { _ in
            log.add("first")
            t.success { _ in log.add("inner") }
        }
        t.success { _ in log.add("second") }
        t.execute()
        clock.runUntilIdle()
        #expect(log.all == ["first", "second", "inner"])
    }

    @Test func nestedAddsKeepTheirOrderAndRunBeforeTheCallReturns() {
        let (g, _) = virtualGraph()
        let log = Recorder<String>()
        let t = GraphTask<Int, TestError> { succeed, _ in succeed(2) }
        _ = g
        t.success { _ in
            log.add("a")
            t.success { _ in
                log.add("inner1")
                t.success { _ in log.add("inner-inner") }
            }
            t.failure { _ in log.add("never") }
            t.completion { _ in log.add("inner2") }
        }
        t.completion { _ in log.add("b") }
        t.execute()
        // All of it ran inside execute(): nothing is left for later.
        #expect(log.all == ["a", "b", "inner1", "inner2", "inner-inner"])
        // Outside any handler, a late handler still runs at once.
        t.success { _ in log.add("late") }
        #expect(log.all.last == "late")
    }

    @Test func handlerAddedInsideAFailureHandlerRunsAfterTheEarlierOnes() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(1, after: 1, graph: g, fail: true)
        t.failure { _ in t.failure { _ in log.add("inner") } }
        t.failure { _ in log.add("second") }
        t.execute()
        clock.runUntilIdle()
        #expect(log.all == ["second", "inner"])
    }

    @Test func thenClosureTakesItsTurnAmongTheSourceHandlers() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(1, after: 1, graph: g)
        t.success { _ in log.add("h1") }
        let d = t.then { v -> GraphTask<Int, TestError> in
            log.add("then")
            return .succeed(v + 1, graph: g)
        }.execute()
        t.success { _ in log.add("h3") }
        clock.runUntilIdle()
        #expect(log.all == ["h1", "then", "h3"])
        #expect(val(d) == 2)
    }

    @Test func recoverAndMapTakeTheirTurnToo() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(1, after: 1, graph: g, fail: true)
        t.failure { _ in log.add("h1") }
        t.recover { _ -> GraphTask<Int, TestError> in
            log.add("recover")
            return .succeed(0, graph: g)
        }.execute()
        t.failure { _ in log.add("h3") }
        let u = timed(1, after: 1, graph: g)
        u.success { _ in log.add("u1") }
        u.mapResult { v -> Int in
            log.add("map")
            return v
        }.execute()
        u.success { _ in log.add("u3") }
        clock.runUntilIdle()
        #expect(log.all == ["h1", "recover", "h3", "u1", "map", "u3"])
    }

    @Test func derivedTaskExecutedLaterGoesAfterEarlierHandlers() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(1, after: 1, graph: g)
        let d = t.then { v -> GraphTask<Int, TestError> in
            log.add("then")
            return .succeed(v, graph: g)
        }
        t.success { _ in log.add("h1") }
        d.execute() // it starts waiting here: after h1
        t.success { _ in log.add("h2") }
        clock.runUntilIdle()
        #expect(log.all == ["h1", "then", "h2"])
    }

    @Test func handlersOnQueuesKeepTheOrderPerQueue() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let q = DispatchQueue(label: "order")
        let t = timed(1, after: 1, graph: g)
        t.success(on: q) { _ in log.add("h1") }
        let d = t.then { v -> GraphTask<Int, TestError> in .succeed(v, graph: g) }
        d.success(on: q) { _ in log.add("then") }
        d.execute()
        t.success(on: q) { _ in log.add("h3") }
        clock.runUntilIdle()
        q.sync {}
        #expect(log.all == ["h1", "then", "h3"])
    }

    @Test func orderHoldsWhenTheParentStepIsQueued() {
        // Each task is settled from a handler of the one before, so the last settles deep
        // in the trampoline, where the parent's step is queued: the handlers after its turn
        // queue behind it.
        let (g, _) = virtualGraph()
        let log = Recorder<String>()
        let settlers = Locked<[@Sendable (Int) -> Void]>([])
        let tasks = (0..<100).map { _ in
            GraphTask<Int, TestError>(graph: g) { succeed, _ in settlers.withLock { $0.append(succeed) } }.execute()
        }
        let all = settlers.withLock { $0 }
        for i in 0..<99 { tasks[i].success { v in all[i + 1](v + 1) } }
        let t = tasks[99]
        t.success { _ in log.add("h1") }
        let d = t.then { v -> GraphTask<Int, TestError> in
            log.add("then")
            return .succeed(v, graph: g)
        }.execute()
        t.success { _ in log.add("h3") }
        all[0](0)
        #expect(val(d) == 99)
        #expect(log.all == ["h1", "then", "h3"])
    }

    @Test func closureReturningItsOwnTaskIsDetected() {
        let (g, _) = virtualGraph()
        let t = forever(graph: g)
        let d = t.then { v in .succeed(v, graph: g) }
        let outer = d.then { v in .succeed(v, graph: g) }.execute() // all three executing
        let other = GraphTask<Int, TestError>.succeed(2, graph: g)
        g.lock.withLock {
            let own = LinkDriver.cycleMessageLocked(next: d, owner: d)
            #expect(own?.contains("its own task") == true)
            #expect(LinkDriver.cycleMessageLocked(next: outer, owner: d)?.contains("waits for it") == true)
            #expect(LinkDriver.cycleMessageLocked(next: other, owner: d) == nil)
        }
    }

    /// A handler added from another thread while the settling thread is still calling the
    /// earlier ones runs after them (on the settling thread), not at once beside them: with
    /// handlers on one queue, this is what keeps registration order per queue.
    @Test func handlerAddedFromAnotherThreadDuringDeliveryRunsAfterTheEarlierOnes() {
        let (task, resolver) = GraphTask<Int, TestError>.pending(graph: Graph())
        let log = Recorder<String>()
        let added = DispatchSemaphore(value: 0)
        task.success { _ in
            log.add("first")
            // Another thread adds a handler while this one runs, and waits until it is added.
            Thread.detachNewThread {
                task.success { _ in log.add("late") }
                added.signal()
            }
            added.wait()
            log.add("first ends")
        }
        task.success { _ in log.add("second") }
        resolver.succeed(1)
        #expect(log.all == ["first", "first ends", "second", "late"])
    }
}

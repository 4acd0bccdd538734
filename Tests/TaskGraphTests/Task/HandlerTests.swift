import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// Handlers: order, once, late registration, cancellation, queues; states only forward.
@Suite struct HandlerTests {
    @Test func handlersRunOnceInRegistrationOrder() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(5, after: 1, graph: g)
        t.completion { log.add("completion1 \((try? $0.get()) ?? -1)") }
            .success { log.add("success1 \($0)") }
            .failure { _ in log.add("failure") }
            .success { log.add("success2 \($0)") }
            .completion { _ in log.add("completion2") }
            .execute()
        #expect(log.all.isEmpty)
        clock.runUntilIdle()
        #expect(log.all == ["completion1 5", "success1 5", "success2 5", "completion2"])
    }

    @Test func failureHandlers() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(5, after: 1, graph: g, fail: true)
        t.success { _ in log.add("success") }
            .failure { log.add("failure \($0.code)") }
            .completion { r in if case .failure = r { log.add("completion failure") } }
            .execute()
        clock.runUntilIdle()
        #expect(log.all == ["failure 1", "completion failure"])
    }

    @Test func handlerRegisteredAfterCompletionRunsAtOnce() {
        let (g, _) = virtualGraph()
        let log = Recorder<String>()
        let t = GraphTask<Int, TestError>.succeed(3, graph: g).execute()
        t.success { log.add("success \($0)") }
        #expect(log.all == ["success 3"])
        t.completion { _ in log.add("completion") }
        t.failure { _ in log.add("failure") }
        #expect(log.all == ["success 3", "completion"])
        let f = GraphTask<Int, TestError>.fail(TestError(code: 9), graph: g).execute()
        f.failure { log.add("failure \($0.code)") }
        #expect(log.all == ["success 3", "completion", "failure 9"])
    }

    @Test func cancelStopsSuccessFailureAndCompletion() {
        let (g, clock) = virtualGraph()
        let log = Recorder<String>()
        let t = timed(1, after: 1, graph: g)
        t.success { _ in log.add("success") }.failure { _ in log.add("failure") }
            .completion { _ in log.add("completion") }.onCancel { log.add("cancel") }
            .execute()
        t.cancel()
        clock.runUntilIdle()
        // Registered after cancellation: never called either.
        t.success { _ in log.add("late success") }.completion { _ in log.add("late completion") }
        #expect(log.all == ["cancel"])
    }

    @Test func progressIsReportedOnlyWhileExecuting() {
        let (g, _) = virtualGraph()
        let (t, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let seen = Recorder<Double>()
        t.progress { seen.add($0.fraction) }
        resolver.progress(TaskProgress(0.2))
        resolver.succeed(1)
        resolver.progress(TaskProgress(0.5)) // after completion: ignored
        #expect(seen.all == [0.2, 1.0])
        #expect(t.currentProgress.fraction == 1)
    }

    @Test func nothingIsReportedOnEnteringExecuting() {
        let (g, clock) = virtualGraph()
        let seen = Recorder<Double>()
        let t = timed(1, after: 1, graph: g)
        t.progress { seen.add($0.fraction) }.execute()
        #expect(t.state == .executing)
        #expect(seen.all.isEmpty)
        clock.runUntilIdle()
        #expect(seen.all == [1.0])
    }

    @Test func oneIsReportedOnceBeforeSuccessHandlers() {
        let (g, _) = virtualGraph()
        let log = Recorder<String>()
        let t = GraphTask<Int, TestError>(graph: g) { s, _, p in
            p(TaskProgress(0.5))
            s(1)
        }
        t.success { _ in log.add("success") }.progress { log.add("progress \($0.fraction)") }.execute()
        #expect(log.all == ["progress 0.5", "progress 1.0", "success"])

        // Already at 1: no second 1.0.
        let log2 = Recorder<String>()
        let u = GraphTask<Int, TestError>(graph: g) { s, _, p in
            p(TaskProgress(1))
            s(1)
        }
        u.progress { log2.add("progress \($0.fraction)") }.success { _ in log2.add("success") }.execute()
        #expect(log2.all == ["progress 1.0", "success"])
    }

    @Test func failedAndCancelledTasksKeepTheirLastFraction() {
        let (g, _) = virtualGraph()
        let seen = Recorder<Double>()
        let f = GraphTask<Int, TestError>(graph: g) { _, fail, p in
            p(TaskProgress(0.4))
            fail(TestError())
        }
        f.progress { seen.add($0.fraction) }.execute()
        #expect(seen.all == [0.4])
        #expect(f.currentProgress.fraction == 0.4)
        #expect(g.snapshot()[f.id]?.progress.fraction == 0.4)

        let (c, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let seenC = Recorder<Double>()
        c.progress { seenC.add($0.fraction) }
        resolver.progress(TaskProgress(0.7))
        c.cancel()
        resolver.progress(TaskProgress(0.9))
        #expect(seenC.all == [0.7])
        #expect(c.currentProgress.fraction == 0.7)
        #expect(g.snapshot()[c.id]?.progress.fraction == 0.7)
        #expect(g.snapshot()[c.id]?.state == .cancelled)
    }

    @Test func statesOnlyMoveForward() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let a = timed(1, after: 1, graph: g)
        let b = timed(1, after: 1, graph: g)
        let c = timed(1, after: 1, graph: g)
        a.execute()
        b.execute()
        clock.runUntilIdle()
        a.cancel() // completed: nothing happens
        b.cancel()
        c.cancel() // never executed: straight to cancelled
        c.execute()
        #expect(log.states(a.id) == [.executing, .completed])
        #expect(log.states(b.id) == [.executing, .completed])
        #expect(log.states(c.id) == [.cancelled])
        #expect(log.cancelSources(a.id).isEmpty)
        #expect(log.cancelSources(c.id) == ["api"])
        #expect(a.state == .completed)
    }

    @Test func handlersOnAQueue() async {
        let (g, _) = virtualGraph()
        let queue = DispatchQueue(label: "handlers")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let log = Recorder<String>()
        let (t, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        t.progress(on: queue) { log.add("progress \($0.fraction) \(DispatchQueue.getSpecific(key: key) ?? 0)") }
            .success(on: queue) { log.add("success1 \($0) \(DispatchQueue.getSpecific(key: key) ?? 0)") }
            .completion(on: queue) { _ in log.add("completion \(DispatchQueue.getSpecific(key: key) ?? 0)") }
            .success(on: queue) { _ in log.add("success2") }
        resolver.progress(TaskProgress(0.5))
        resolver.succeed(4)
        #expect(await eventuallyAsync { log.count == 5 })
        #expect(log.all == ["progress 0.5 1", "progress 1.0 1", "success1 4 1", "completion 1", "success2"])

        let failures = Recorder<String>()
        let f = GraphTask<Int, TestError>.fail(TestError(code: 2), graph: g)
        f.failure(on: queue) { failures.add("failure \($0.code) \(DispatchQueue.getSpecific(key: key) ?? 0)") }
            .execute()
        #expect(await eventuallyAsync { failures.count == 1 })
        #expect(failures.all == ["failure 2 1"])
    }

    @Test func handlersWithoutAQueueRunOnTheSettlingThread() {
        let (g, _) = virtualGraph()
        let (t, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let threads = Recorder<Bool>()
        let settler = Locked<pthread_t?>(nil)
        t.success { _ in threads.add(pthread_equal(pthread_self(), settler.get!) != 0) }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            settler.withLock { $0 = pthread_self() }
            resolver.succeed(1)
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(threads.all == [true])
    }
}

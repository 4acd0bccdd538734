import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// `value` (Swift Concurrency), `pending` + `Resolver`, `wait(timeout:)`.
@Suite struct AsyncAndPendingTests {
    @Test func valueExecutesAndReturns() async throws {
        let (g, _) = virtualGraph()
        let t = GraphTask<Int, TestError>.succeed(5, graph: g)
        #expect(try await t.value == 5)
        #expect(t.state == .completed)
    }

    @Test func valueThrowsTheFailure() async {
        let (g, _) = virtualGraph()
        let t = GraphTask<Int, TestError>.fail(TestError(code: 6), graph: g)
        do {
            _ = try await t.value
            Issue.record("no error")
        } catch let e as TestError {
            #expect(e.code == 6)
        } catch {
            Issue.record("wrong error \(error)")
        }
    }

    @Test func cancellingTheGraphTaskThrowsCancellationError() async {
        let (g, _) = virtualGraph()
        let t = forever(graph: g)
        let awaiter = Task { () -> String in
            do {
                _ = try await t.value
                return "value"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "other"
            }
        }
        #expect(await eventuallyAsync { t.state == .executing })
        t.cancel()
        #expect(await awaiter.value == "cancelled")
    }

    @Test func cancellingTheAwaitingSwiftTaskCancelsTheGraphTaskForEveryAwaiter() async {
        let (g, _) = virtualGraph()
        let cancelled = Counter()
        let t = forever(graph: g)
        t.onCancel { cancelled.bump() }
        @Sendable func awaitValue() async -> String {
            do {
                _ = try await t.value
                return "value"
            } catch is CancellationError {
                return "cancelled after \(cancelled.value) onCancel"
            } catch {
                return "other"
            }
        }
        let first = Task { await awaitValue() }
        let second = Task { await awaitValue() }
        #expect(await eventuallyAsync { t.state == .executing })
        // Let both register as waiters; the outcome is the same either way for `first`.
        try? await Task.sleep(nanoseconds: 50_000_000)
        first.cancel()
        #expect(await first.value == "cancelled after 1 onCancel")
        #expect(await second.value == "cancelled after 1 onCancel")
        #expect(t.state == .cancelled)
        #expect(cancelled.value == 1)
    }

    @Test func alreadyCancelledSwiftTaskCancelsWithoutRunning() async {
        let (g, _) = virtualGraph()
        let ran = Counter()
        let t = GraphTask<Int, TestError>(graph: g) { s, _ in
            ran.bump()
            s(1)
        }
        let result = await Task { () -> String in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await t.value
                return "value"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "other"
            }
        }.value
        #expect(result == "cancelled")
        #expect(ran.value == 0)
        #expect(t.state == .cancelled)
    }

    @Test func valueOnAnAdoptedSubtaskNeverExecutesItOutOfOrder() async throws {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let aStateWhenBRan = Recorder<TaskState>()
        let b = GraphTask<Int, TestError>(graph: g) { s, _ in
            aStateWhenBRan.add(a.state)
            s(2)
        }
        let seq = GraphTask.sequential([a, b])
        let awaiter = Task { try await b.value }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(b.state == .notExecuted)
        #expect(a.state == .notExecuted)
        seq.execute()
        clock.runUntilIdle()
        #expect(try await awaiter.value == 2)
        #expect(aStateWhenBRan.all == [.completed])
    }

    @Test func pendingIsExecutingFromCreationAndSettlesThroughItsResolver() {
        let (g, _) = virtualGraph()
        let (t, resolver) = GraphTask<Int, TestError>.pending(name: "upload", graph: g)
        #expect(t.state == .executing)
        #expect(g.snapshot()[t.id]?.kind == "pending")
        #expect(g.snapshot()[t.id]?.name == "upload")
        #expect(resolver.needsResolution)
        let copy = resolver
        #expect(copy.succeed(3))
        #expect(resolver.needsResolution == false)
        #expect(resolver.fail(TestError()) == false)
        #expect(resolver.fill(.success(4)) == false)
        #expect(val(t) == 3)
    }

    @Test func resolverFailAndFill() {
        let (g, _) = virtualGraph()
        let (t, r) = GraphTask<Int, TestError>.pending(graph: g)
        #expect(r.fail(TestError(code: 2)))
        #expect(errorCode(t.outcome) == 2)
        let (u, q) = GraphTask<Int, TestError>.pending(graph: g)
        #expect(q.fill(.success(8)))
        #expect(val(u) == 8)
    }

    @Test func cancelledPendingNeedsNoResolution() {
        let (g, _) = virtualGraph()
        let (t, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        t.cancel()
        #expect(resolver.needsResolution == false)
        #expect(resolver.succeed(1) == false)
        #expect(t.state == .cancelled)
    }

    @Test func releasingTheLastResolverCopyCancels() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        var t: GraphTask<Int, TestError>?
        do {
            let (task, resolver) = GraphTask<Int, TestError>.pending(graph: g)
            t = task
            let copies = [resolver, resolver]
            _ = copies
        }
        #expect(t?.state == .cancelled)
        #expect(log.cancelSources(t!.id) == ["resolverReleased"])

        // A settled task is left alone.
        var u: GraphTask<Int, TestError>?
        do {
            let (task, resolver) = GraphTask<Int, TestError>.pending(graph: g)
            u = task
            resolver.succeed(1)
        }
        #expect(u?.state == .completed)
        #expect(log.cancelSources(u!.id).isEmpty)
    }

    @Test func resolverProgressFromAnotherThread() {
        let (g, _) = virtualGraph()
        let (t, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let seen = Recorder<Double>()
        t.progress { seen.add($0.fraction) }
        DispatchQueue.global().async {
            resolver.progress(TaskProgress(0.5))
            resolver.succeed(1)
        }
        #expect(t.wait(timeout: 30).map { (try? $0.get()) ?? -1 } == 1)
        #expect(seen.all == [0.5, 1.0])
    }

    @Test func waitExecutesAndReturnsTheOutcome() {
        let (g, _) = virtualGraph()
        let t = GraphTask<Int, TestError>(graph: g) { s, _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { s(11) }
        }
        let r = t.wait(timeout: 30)
        #expect(r.map { (try? $0.get()) ?? -1 } == 11)
        let f = GraphTask<Int, TestError>.fail(TestError(code: 3), graph: g)
        #expect(errorCode(f.wait(timeout: 30)) == 3)
    }

    @Test func waitTimesOutAndReturnsNilOnCancellation() {
        let (g, _) = virtualGraph()
        let t = forever(graph: g)
        let start = Date()
        #expect(t.wait(timeout: 0.05) == nil)
        #expect(Date().timeIntervalSince(start) >= 0.05)
        #expect(t.state == .executing)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { t.cancel() }
        #expect(t.wait(timeout: 30) == nil)
        #expect(t.state == .cancelled)
    }

    @Test func waitNeverExecutesAnAdoptedSubtask() {
        let (g, _) = virtualGraph()
        let a = forever(graph: g)
        let b = GraphTask<Int, TestError>.succeed(2, graph: g)
        let seq = GraphTask.sequential([a, b])
        #expect(b.wait(timeout: 0.05) == nil)
        #expect(b.state == .notExecuted)
        #expect(seq.state == .notExecuted)
    }
}

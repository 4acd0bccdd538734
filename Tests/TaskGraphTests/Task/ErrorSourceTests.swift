import TaskGraph
import Testing

/// Errors say where they came from: `TimeoutError` names the task, `cancelSource` tells who
/// cancelled a task.
@Suite struct ErrorSourceTests {
    @Test func timeoutErrorNamesTheTimedOutTask() {
        let (g, clock) = virtualGraph()
        let t = forever(name: "hash files", graph: g).timeout(seconds: 2, name: "limit").execute()
        clock.runUntilIdle()
        guard case .failure(let e)? = t.outcome, let timeout = e as? TimeoutError else {
            Issue.record("no TimeoutError")
            return
        }
        #expect(timeout.taskName == "hash files")
        #expect(timeout.seconds == 2)
        #expect(String(describing: timeout) == "\"hash files\" timed out after 2.0 s")
        #expect(g.snapshot()[t.id]?.message == "\"hash files\" timed out after 2.0 s")
        #expect(TimeoutError(seconds: 1).seconds == 1) // the old initializer still compiles
    }

    @Test func cancelSourceTellsWhoCancelled() {
        let (g, clock) = virtualGraph()
        let plain = forever(name: "plain", graph: g).execute()
        #expect(plain.cancelSource == nil)
        plain.cancel()
        #expect(plain.cancelSource == "api")

        let inner = forever(name: "inner", graph: g)
        let limited = inner.timeout(seconds: 1).execute()
        clock.runUntilIdle()
        #expect(inner.cancelSource == "timeout")
        #expect(limited.cancelSource == nil) // it failed, it was not cancelled

        let a = forever(name: "a", graph: g)
        let b = timed(1, after: 1, name: "b", graph: g)
        let bad = GraphTask<Int, TestError>.fail(TestError(), name: "bad", graph: g)
        let group = GraphTask.concurrent([a, b, bad], graph: g).execute()
        #expect(group.state == .completed)
        #expect(a.cancelSource == "failFast")

        let x = forever(name: "x", graph: g)
        let y = forever(name: "y", graph: g)
        let seq = GraphTask.sequential([x, y], graph: g).execute()
        g.cancel(seq.id, source: "keyboard")
        #expect(seq.cancelSource == "keyboard")
        #expect(x.cancelSource == "parent")
        #expect(y.cancelSource == nil) // never executed: left alone, not cancelled

        let z = forever(name: "z", graph: g)
        g.cancel(z.id)
        #expect(z.cancelSource == "graph")
    }

    @Test func cancelSourceAfterValueThrowsCancellationError() async {
        let (g, _) = virtualGraph()
        let t = forever(name: "waited", graph: g)
        let waiter = Task { try await t.value }
        #expect(await eventuallyAsync { t.state == .executing })
        t.cancel(source: "shutdown")
        do {
            _ = try await waiter.value
            Issue.record("no error")
        } catch {
            #expect(error is CancellationError)
            #expect(t.cancelSource == "shutdown")
        }
    }
}

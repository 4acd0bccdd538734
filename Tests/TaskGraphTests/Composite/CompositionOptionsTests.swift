import Dispatch
import Testing

@testable import TaskGraph

/// The composition options (the Composition article): errors name the row a user sees, groups
/// take `maxConcurrent:` and `combine:` together, `eraseFailure()` widens a failure type.
@Suite struct CompositionOptionsTests {
    func timeoutMessage<S, F>(_ inner: GraphTask<S, F>, clock: VirtualClock) -> String? {
        let t = inner.timeout(seconds: 3, name: "limit").execute()
        clock.advance(by: 3)
        guard case .failure(let e)? = t.outcome else { return nil }
        #expect((e as? TimeoutError)?.seconds == 3)
        #expect(t.graph.snapshot()[t.id]?.message == String(describing: e))
        return String(describing: e)
    }

    @Test func timeoutOfAMappedTaskNamesTheTaskUnderTheAdapter() {
        let (g, clock) = virtualGraph()
        #expect(
            timeoutMessage(forever(name: "compile", graph: g).mapResult { $0 + 1 }, clock: clock)
                == "\"compile\" timed out after 3.0 s")
        #expect(
            timeoutMessage(forever(name: "link", graph: g).mapError { _ in TestError(code: 2) }, clock: clock)
                == "\"link\" timed out after 3.0 s")
        // Adapters over adapters, named or not: a dashboard folds them all into the leaf's row.
        let nested = forever(name: "hash files", graph: g).mapResult(name: "count") { $0 }.mapProgress { $0 }
            .eraseFailure()
        #expect(timeoutMessage(nested, clock: clock) == "\"hash files\" timed out after 3.0 s")
        // Not an adapter: its own name.
        let group = GraphTask.sequential([forever(name: "a", graph: g)], name: "build", graph: g)
        #expect(timeoutMessage(group, clock: clock) == "\"build\" timed out after 3.0 s")
        #expect(timeoutMessage(forever(name: "plain", graph: g), clock: clock) == "\"plain\" timed out after 3.0 s")
    }

    @Test func concurrentTakesMaxConcurrentAndCombineTogether() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let tasks = [2.0, 1, 1, 1].enumerated().map { i, d in timed(i + 1, after: d, name: "t\(i)", graph: g) }
        let sum = GraphTask.concurrent(tasks, maxConcurrent: 2, name: "sum", graph: g, combine: { $0.reduce(0, +) })
            .execute()
        #expect(tasks.map(\.state) == [.executing, .executing, .notExecuted, .notExecuted])
        clock.runUntilIdle()
        #expect(val(sum) == 10)
        #expect(sum.name == "sum")
        #expect(MaxConcurrentTests.replay(log, tasks.map(\.id)).most == 2)
        #expect(clock.now == 3) // t0 (0-2 s) beside t1 (0-1) and t2 (1-2); then t3 (2-3)
        // Without a name or graph.
        let leaves = (1...3).map { GraphTask<Int, TestError>.succeed($0, graph: g) }
        #expect(val(GraphTask.concurrent(leaves, maxConcurrent: 1, combine: { $0.reduce(0, +) }).execute()) == 6)
    }

    @Test func allSettledTakesMaxConcurrentAndCombineTogether() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let tasks = [
            timed(1, after: 1, graph: g), timed(2, after: 1, graph: g, fail: true), timed(3, after: 1, graph: g),
        ]
        let succeeded = GraphTask.allSettled(
            tasks, maxConcurrent: 1, name: "count",
            combine: { outcomes in
                outcomes.reduce(0) { n, o in if case .success = o { n + 1 } else { n } }
            }
        ).execute()
        clock.runUntilIdle()
        #expect(val(succeeded) == 2)
        #expect(clock.now == 3) // one at a time
        #expect(MaxConcurrentTests.replay(log, tasks.map(\.id)).most == 1)
    }

    @Test func sequentialTakesMaxConcurrentAndCombineToo() {
        let (g, clock) = virtualGraph()
        let tasks = [timed("a", after: 1, graph: g), timed("b", after: 1, graph: g)]
        let joined = GraphTask.sequential(tasks, maxConcurrent: 2, name: "join", combine: { $0.joined() }).execute()
        #expect(tasks.map(\.state) == [.executing, .notExecuted]) // still one at a time
        clock.runUntilIdle()
        #expect(val(joined) == "ab")
        let plain = GraphTask.sequential([timed(1, after: 1, graph: g)], maxConcurrent: 1).execute()
        clock.runUntilIdle()
        #expect(val(plain) == [1])
    }

    @Test func eraseFailureWidensNeverAndTypedFailures() {
        let (g, clock) = virtualGraph()
        let tick: GraphTask<Void, any Error> = GraphTask.delay(seconds: 1, graph: g).eraseFailure()
        let typed: GraphTask<Int, any Error> = GraphTask<Int, TestError>.fail(TestError(code: 7), graph: g)
            .eraseFailure(name: "widened")
        let limited: GraphTask<Int, any Error> = forever(name: "slow", graph: g).timeout(seconds: 2)
        // Tasks that fail with `any Error` now combine with the others in one group.
        let both = GraphTask.allSettled([tick.mapResult { 0 }, typed, limited], graph: g).execute()
        clock.runUntilIdle()
        guard case .success(let outcomes)? = both.outcome else {
            Issue.record("not settled")
            return
        }
        guard case .success = outcomes[0] else {
            Issue.record("the delay did not succeed: \(outcomes[0])")
            return
        }
        guard case .failure(let e) = outcomes[1], case .failure(let t) = outcomes[2] else {
            Issue.record("not failures: \(outcomes)")
            return
        }
        #expect(e as? TestError == TestError(code: 7))
        #expect(t is TimeoutError)
        // An adapter, folded into its child's row like `map`.
        #expect(tick.kind == "map")
        #expect(typed.kind == "map")
        #expect(typed.name == "widened")
        #expect(g.snapshot()[typed.id]?.message == "test error 7")
    }
}

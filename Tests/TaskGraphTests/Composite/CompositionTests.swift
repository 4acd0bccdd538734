import Testing

@testable import TaskGraph

/// A leaf that fails with `TestError(code:)` after `seconds` on the virtual clock.
func failing(_ code: Int, after seconds: Double, graph: Graph) -> GraphTask<Int, TestError> {
    GraphTask<Int, TestError>(graph: graph) { task, _, fail, _ in
        let timer = graph.clock.schedule(after: seconds) { fail(TestError(code: code)) }
        task.onCancel { timer.cancel() }
    }
}

func errorCode<S>(_ r: Result<S, TestError>?) -> Int? {
    if case .failure(let e)? = r { return e.code }
    return nil
}

/// then, recover, chain, sequential, concurrent, allSettled, race, and.
@Suite struct CompositionTests {
    @Test func thenTaskForm() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let b = timed("two", after: 1, graph: g)
        let t = a.then(b)
        #expect(b.state == .notExecuted)
        t.execute()
        clock.advance(by: 1)
        #expect(a.state == .completed)
        #expect(b.state == .executing)
        clock.advance(by: 1)
        #expect(val(t) == "two")
        let node = g.snapshot()[t.id]
        #expect(node?.kind == "then")
        #expect(node?.name == "then")
        #expect(node?.children == [a.id, b.id])
        #expect(g.snapshot()[a.id]?.parent == t.id)
    }

    @Test func thenSkipsTheNextLinkAfterAFailure() {
        let (g, clock) = virtualGraph()
        let b = timed(2, after: 1, graph: g)
        let t = failing(5, after: 1, graph: g).then(b)
        t.execute()
        clock.runUntilIdle()
        #expect(errorCode(t.outcome) == 5)
        #expect(b.state == .notExecuted)
        let made = Counter()
        let u = GraphTask<Int, TestError>.fail(TestError(code: 6), graph: g).then { v -> GraphTask<Int, TestError> in
            made.bump()
            return .succeed(v, graph: g)
        }
        u.execute()
        #expect(errorCode(u.outcome) == 6)
        #expect(made.value == 0)
        #expect(g.snapshot()[u.id]?.children.count == 1)
    }

    @Test func thenClosureForm() {
        let (g, clock) = virtualGraph()
        let got = Locked<NodeID?>(nil)
        let a = timed(20, after: 1, graph: g)
        let t = a.then(name: "double") { v -> GraphTask<Int, TestError> in
            let next = timed(v * 2, after: 1, graph: g)
            got.withLock { $0 = next.id }
            return next
        }
        t.execute()
        clock.runUntilIdle()
        #expect(val(t) == 40)
        let node = g.snapshot()[t.id]
        #expect(node?.name == "double")
        #expect(node?.children == [a.id, got.get!])
        #expect(g.snapshot()[got.get!]?.parent == t.id)
    }

    @Test func recoverTaskForm() {
        let (g, clock) = virtualGraph()
        let other = timed(9, after: 1, graph: g)
        let r = failing(1, after: 1, graph: g).recover(other)
        r.execute()
        clock.runUntilIdle()
        #expect(val(r) == 9)
        #expect(g.snapshot()[r.id]?.kind == "recover")

        let skipped = timed(9, after: 1, graph: g)
        let s = timed(3, after: 1, graph: g).recover(skipped)
        s.execute()
        clock.runUntilIdle()
        #expect(val(s) == 3)
        #expect(skipped.state == .notExecuted)
    }

    @Test func recoverClosureFormGetsTheError() {
        let (g, clock) = virtualGraph()
        let r = failing(7, after: 1, graph: g).recover { e -> GraphTask<Int, Never> in
            .succeed(e.code * 10, graph: g)
        }
        r.execute()
        clock.runUntilIdle()
        #expect(val(r) == 70)
    }

    @Test func chainAlwaysRuns() {
        let (g, clock) = virtualGraph()
        let c1 = timed(2, after: 1, graph: g).chain { r -> GraphTask<String, Never> in
            .succeed("got \((try? r.get()) ?? -1)", graph: g)
        }
        let c2 = failing(4, after: 1, graph: g).chain { r -> GraphTask<String, Never> in
            .succeed("error \(errorCode(r) ?? -1)", graph: g)
        }
        c1.execute()
        c2.execute()
        clock.runUntilIdle()
        #expect(val(c1) == "got 2")
        #expect(val(c2) == "error 4")
        #expect(g.snapshot()[c1.id]?.kind == "chain")
        #expect(g.snapshot()[c1.id]?.children.count == 2)
    }

    @Test func sequentialRunsOneAfterAnotherInOrder() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 2, graph: g)
        let b = timed(2, after: 1, graph: g)
        let c = timed(3, after: 1, graph: g)
        let seq = GraphTask.sequential([a, b, c], name: "seq")
        let log = EventLog(g)
        seq.execute()
        #expect(a.state == .executing && b.state == .notExecuted && c.state == .notExecuted)
        clock.advance(by: 2)
        #expect(a.state == .completed && b.state == .executing && c.state == .notExecuted)
        clock.runUntilIdle()
        #expect(val(seq) == [1, 2, 3])
        #expect(clock.now == 4)
        #expect(g.snapshot()[seq.id]?.children == [a.id, b.id, c.id])
        #expect(log.states(seq.id) == [.executing, .completed])
    }

    @Test func sequentialFailureStopsTheRest() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let b = failing(2, after: 1, graph: g)
        let c = timed(3, after: 1, graph: g)
        let seq = GraphTask.sequential([a, b, c])
        let failures = Recorder<Int>()
        seq.failure { failures.add($0.code) }.execute()
        clock.runUntilIdle()
        #expect(failures.all == [2])
        #expect(c.state == .notExecuted)
        #expect(clock.now == 2)
    }

    @Test func emptyGroupsSucceedAtOnceWithNothing() {
        let (g, _) = virtualGraph()
        let s = GraphTask<Int, TestError>.sequential([], graph: g).execute()
        let c = GraphTask<Int, TestError>.concurrent([], graph: g).execute()
        let a = GraphTask<Int, TestError>.allSettled([], graph: g).execute()
        #expect(val(s) == [])
        #expect(val(c) == [])
        #expect(val(a)?.count == 0)
        #expect(g.snapshot().nodes.count == 3)
    }

    @Test func concurrentStartsAllAndKeepsOrder() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 3, graph: g)
        let b = timed(2, after: 1, graph: g)
        let c = timed(3, after: 2, graph: g)
        let all = GraphTask.concurrent([a, b, c])
        all.execute()
        #expect([a, b, c].allSatisfy { $0.state == .executing })
        clock.runUntilIdle()
        #expect(val(all) == [1, 2, 3])
        #expect(clock.now == 3)
    }

    @Test func concurrentFailsFastCancellingExecutingSiblings() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let order = Recorder<String>()
        let a = timed(1, after: 5, graph: g)
        let b = failing(3, after: 1, graph: g)
        let c = timed(3, after: 5, graph: g)
        a.onCancel { order.add("a cancelled") }
        c.onCancel { order.add("c cancelled") }
        let all = GraphTask.concurrent([a, b, c])
        all.failure { order.add("failed \($0.code)") }.execute()
        clock.advance(by: 1)
        #expect(order.all == ["a cancelled", "c cancelled", "failed 3"])
        #expect(a.state == .cancelled && c.state == .cancelled)
        #expect(log.cancelSources(a.id) == ["failFast"])
        #expect(log.cancelSources(c.id) == ["failFast"])
        #expect(log.cancelSources(all.id).isEmpty)
        #expect(all.state == .completed)
        #expect(g.snapshot()[all.id]?.failed == true)
        #expect(clock.nextDue == nil)
    }

    @Test func failureWhileStartingStopsTheRest() {
        let (g, _) = virtualGraph()
        let c = timed(3, after: 1, graph: g)
        let d = timed(4, after: 1, graph: g)
        let all = GraphTask.concurrent([GraphTask<Int, TestError>.fail(TestError(code: 8), graph: g), c, d])
        all.execute()
        #expect(errorCode(all.outcome) == 8)
        #expect(c.state == .notExecuted)
        #expect(d.state == .notExecuted)
    }

    @Test func allSettledReportsEveryOutcomeInOrder() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 3, graph: g)
        let b = failing(2, after: 1, graph: g)
        let c = timed(3, after: 2, graph: g)
        let d = timed(4, after: 9, graph: g)
        let all = GraphTask.allSettled([a, b, c, d])
        all.execute()
        clock.advance(by: 1)
        d.cancel() // from outside: recorded as .cancelled, the rest go on
        #expect(all.state == .executing)
        #expect(a.state == .executing)
        clock.runUntilIdle()
        #expect(val(all) == [.success(1), .failure(TestError(code: 2)), .success(3), .cancelled])
        #expect(g.snapshot()[all.id]?.kind == "allSettled")
    }

    @Test func raceFirstWinsOthersCancelledByParent() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let a = timed(1, after: 2, graph: g)
        let b = timed(2, after: 1, graph: g)
        let c = timed(3, after: 3, graph: g)
        let r = GraphTask.race([a, b, c])
        r.execute()
        clock.runUntilIdle()
        #expect(val(r) == 2)
        #expect(a.state == .cancelled && c.state == .cancelled)
        #expect(log.cancelSources(a.id) == ["parent"])
        #expect(log.cancelSources(c.id) == ["parent"])
        #expect(g.snapshot()[r.id]?.kind == "race")
        #expect(g.snapshot()[r.id]?.children == [a.id, b.id, c.id])

        let f = GraphTask.race([timed(1, after: 2, graph: g), failing(4, after: 1, graph: g)])
        f.execute()
        clock.runUntilIdle()
        #expect(errorCode(f.outcome) == 4)
    }

    @Test func andCombinesTwoTypes() {
        let (g, clock) = virtualGraph()
        let both = timed(1, after: 1, graph: g).and(timed("x", after: 2, graph: g))
        both.execute()
        clock.runUntilIdle()
        let v = val(both)
        #expect(v?.0 == 1 && v?.1 == "x")
        #expect(g.snapshot()[both.id]?.kind == "and")

        let slow = timed("y", after: 5, graph: g)
        let f = failing(3, after: 1, graph: g).and(slow)
        f.execute()
        clock.advance(by: 1)
        #expect(errorCode(f.outcome) == 3)
        #expect(slow.state == .cancelled)
    }

    @Test func validate() {
        let (g, _) = virtualGraph()
        let ok = GraphTask<Int, TestError>.succeed(5, graph: g).validate { $0 > 3 }.execute()
        #expect(val(ok) == 5)
        let bad = GraphTask<Int, TestError>.succeed(1, graph: g).validate("too small") { $0 > 3 }.execute()
        guard case .failure(let e)? = bad.outcome else {
            Issue.record("not failed")
            return
        }
        #expect((e as? TaskValidationError)?.message == "too small")
        #expect(g.snapshot()[bad.id]?.kind == "validate")
        #expect(g.snapshot()[bad.id]?.message == "too small")
        let dflt = GraphTask<Int, TestError>.succeed(1, graph: g).validate { _ in false }.execute()
        if case .failure(let e)? = dflt.outcome {
            #expect((e as? TaskValidationError)?.message == "validation failed")
        } else {
            Issue.record("not failed")
        }
        let inner = GraphTask<Int, TestError>.fail(TestError(code: 4), graph: g).validate { _ in true }.execute()
        if case .failure(let e)? = inner.outcome {
            #expect((e as? TestError)?.code == 4)
        } else {
            Issue.record("no error")
        }
    }

    @Test func mapAdapters() {
        let (g, _) = virtualGraph()
        let m = GraphTask<Int, TestError>.succeed(2, graph: g).mapResult { "\($0 * 3)" }.execute()
        #expect(val(m) == "6")
        #expect(g.snapshot()[m.id]?.kind == "map")
        struct Other: Error, Equatable { let n: Int }
        let e = GraphTask<Int, TestError>.fail(TestError(code: 2), graph: g).mapError { Other(n: $0.code + 1) }
            .execute()
        if case .failure(let err)? = e.outcome { #expect(err == Other(n: 3)) } else { Issue.record("no error") }
        let o = GraphTask<Int, TestError>.fail(TestError(code: 2), graph: g)
            .mapOutcome { r -> Result<String, Never> in
                switch r {
                case .success(let v): return .success("ok \(v)")
                case .failure(let e): return .success("recovered \(e.code)")
                }
            }
            .execute()
        #expect(val(o) == "recovered 2")
        let inner = GraphTask<Int, TestError>.succeed(1, graph: g)
        let named = inner.mapResult(name: "plus") { $0 + 1 }
        #expect(g.snapshot()[named.id]?.name == "plus")
        #expect(g.snapshot()[named.id]?.children == [inner.id])
    }

    @Test func timeoutPasses() {
        let (g, clock) = virtualGraph()
        let t = timed(1, after: 1, graph: g).timeout(seconds: 2)
        t.execute()
        clock.runUntilIdle()
        #expect(val(t) == 1)
        #expect(clock.now == 1) // the timer was cancelled, never ran
    }

    @Test func timeoutClockStartsAtExecuteAndCancelsInner() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let order = Recorder<String>()
        let inner = timed(1, after: 10, graph: g)
        inner.onCancel { order.add("inner cancelled") }
        let t = inner.timeout(seconds: 2)
        clock.advance(by: 5)
        t.failure { order.add("failed \(($0 as? TimeoutError)?.seconds ?? -1)") }.execute()
        clock.advance(by: 1.9)
        #expect(t.state == .executing)
        clock.advance(by: 0.1)
        #expect(order.all == ["inner cancelled", "failed 2.0"])
        #expect(inner.state == .cancelled)
        #expect(log.cancelSources(inner.id) == ["timeout"])
        #expect(g.snapshot()[t.id]?.kind == "timeout")
        #expect(g.snapshot()[t.id]?.failed == true)
        #expect(t.state == .completed)
    }

    @Test func retryMakesUpToNAttemptsAsChildren() {
        let (g, clock) = virtualGraph()
        let runs = Counter()
        let leaf = GraphTask<Int, TestError>(name: "flaky", graph: g) { _, fail in
            runs.bump()
            fail(TestError(code: runs.value))
        }
        let r = leaf.retry(3)
        r.execute()
        clock.runUntilIdle()
        #expect(runs.value == 3)
        #expect(errorCode(r.outcome) == 3)
        let node = g.snapshot()[r.id]!
        #expect(node.kind == "retry")
        #expect(node.children.count == 3)
        #expect(node.children.first == leaf.id)
        #expect(
            node.children.map { g.snapshot()[$0]?.name } == ["flaky", "flaky (attempt 2/3)", "flaky (attempt 3/3)"])
        #expect(node.children.allSatisfy { g.snapshot()[$0]?.parent == r.id })
    }

    @Test func retryAttemptsAreNumberedAfterAFirstAttemptNamedSo() {
        let (g, clock) = virtualGraph()
        let leaf = GraphTask<Int, TestError>(name: "fetch (attempt 1/2)", graph: g) { _, fail in fail(TestError()) }
        let r = leaf.retry(2).execute()
        clock.runUntilIdle()
        let names = g.snapshot()[r.id]!.children.map { g.snapshot()[$0]!.name }
        #expect(names == ["fetch (attempt 1/2)", "fetch (attempt 2/2)"])
    }

    @Test func retryNamesCompositeAttemptsAndKeepsTheirSubtasksNames() {
        let (g, clock) = virtualGraph()
        let failing = { (name: String) in
            GraphTask<Int, TestError>(name: name, graph: g) { _, fail in fail(TestError()) }
        }
        let names = { (t: AnyGraphTask) in g.snapshot()[t.id]!.children.map { g.snapshot()[$0]!.name } }
        let batch = GraphTask.sequential([failing("step")], name: "batch").retry(3).execute()
        let linked = failing("a").then(name: "pipe") { _ in GraphTask<Int, TestError>.fail(TestError(), graph: g) }
            .retry(2).execute()
        let limited = failing("slow").timeout(seconds: 5).retry(2).execute()
        clock.runUntilIdle()
        #expect(names(batch) == ["batch", "batch (attempt 2/3)", "batch (attempt 3/3)"])
        let copies = g.snapshot()[batch.id]!.children
        #expect(copies.map { g.snapshot()[$0]!.kind } == ["sequential", "sequential", "sequential"])
        #expect(copies.map { g.snapshot()[g.snapshot()[$0]!.children[0]]!.name } == ["step", "step", "step"])
        #expect(names(linked) == ["pipe", "pipe (attempt 2/2)"])
        #expect(names(limited) == ["timeout", "timeout (attempt 2/2)"])
    }

    @Test func retryOfAMappedTaskRemakesTheMapOverACopyOfItsSource() {
        let (g, _) = virtualGraph()
        let runs = Counter()
        let source = GraphTask<Int, TestError>(name: "read", graph: g) { s, f in
            runs.bump()
            if runs.value < 3 { f(TestError(code: runs.value)) } else { s(runs.value) }
        }
        let r = source.mapResult(name: "times ten") { $0 * 10 }.retry(3).execute()
        #expect(val(r) == 30)
        let attempts = g.snapshot()[r.id]!.children
        #expect(attempts.map { g.snapshot()[$0]!.kind } == ["map", "map", "map"])
        #expect(
            attempts.map { g.snapshot()[$0]!.name } == [
                "times ten", "times ten (attempt 2/3)", "times ten (attempt 3/3)",
            ])
        #expect(attempts.map { g.snapshot()[g.snapshot()[$0]!.children[0]]!.name } == ["read", "read", "read"])
    }

    @Test func retryStopsOnSuccessAndZeroMeansOne() {
        let (g, _) = virtualGraph()
        let runs = Counter()
        let r = GraphTask<Int, TestError>(graph: g) { s, f in
            runs.bump()
            if runs.value < 2 { f(TestError()) } else { s(runs.value) }
        }.retry(5).execute()
        #expect(val(r) == 2)
        #expect(runs.value == 2)

        let once = Counter()
        let z = GraphTask<Int, TestError>(graph: g) { _, f in
            once.bump()
            f(TestError())
        }.retry(0).execute()
        #expect(once.value == 1)
        #expect(errorCode(z.outcome) == 1)
    }

    @Test func retryOfPendingIsOneAttempt() {
        let (g, _) = virtualGraph()
        let (p, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let r = p.retry(3).execute()
        resolver.fail(TestError(code: 5))
        #expect(errorCode(r.outcome) == 5)
        #expect(g.snapshot()[r.id]?.children == [p.id])
    }

    @Test func compositesJoinTheirSubtasksGraph() {
        let (g, _) = virtualGraph()
        let seq = GraphTask.sequential([GraphTask<Int, TestError>.succeed(1, graph: g)])
        #expect(seq.graph === g)
        #expect(g.snapshot()[seq.id]?.kind == "sequential")
        let (h, _) = virtualGraph()
        let explicit = GraphTask<Int, TestError>.concurrent([], graph: h)
        #expect(explicit.graph === h)
        #expect(GraphTask<Int, TestError>.sequential([]).graph === Graph.shared)
    }

    @Test func retryDoesNotCopyTheReceiversHandlers() {
        let (g, _) = virtualGraph()
        let runs = Counter()
        let seen = Recorder<String>()
        let leaf = GraphTask<Int, TestError>(graph: g) { s, f in
            runs.bump()
            if runs.value < 3 { f(TestError(code: runs.value)) } else { s(runs.value) }
        }
        leaf.failure { seen.add("receiver failure \($0.code)") }.success { _ in seen.add("receiver success") }
        let r = leaf.retry(3).execute()
        #expect(val(r) == 3)
        #expect(seen.all == ["receiver failure 1"])
    }

    @Test func timeoutPassesTheInnerFailureOn() {
        let (g, clock) = virtualGraph()
        let t = failing(6, after: 1, graph: g).timeout(seconds: 5).execute()
        clock.runUntilIdle()
        guard case .failure(let e)? = t.outcome else {
            Issue.record("not failed")
            return
        }
        #expect((e as? TestError)?.code == 6)
    }
}

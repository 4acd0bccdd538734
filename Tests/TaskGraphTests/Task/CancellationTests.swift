import Testing

@testable import TaskGraph

/// The cancellation rules (Cancelling article), downward and upward, with their recorded sources.
@Suite struct CancellationTests {
    @Test func cancelLeavesSettledSubtasksAloneAndNeverRunsTheRest() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let ran = Counter()
        let a = timed(1, after: 1, graph: g)
        let b = timed(2, after: 5, graph: g)
        let c = GraphTask<Int, TestError>(graph: g) { s, _ in
            ran.bump()
            s(3)
        }
        let cancels = Recorder<String>()
        b.onCancel { cancels.add("b") }
        c.onCancel { cancels.add("c") }
        let seq = GraphTask.sequential([a, b, c])
        seq.onCancel { cancels.add("seq") }.execute()
        clock.advance(by: 1)
        seq.cancel()
        clock.runUntilIdle()
        #expect(a.state == .completed)
        #expect(b.state == .cancelled)
        #expect(c.state == .notExecuted)
        #expect(seq.state == .cancelled)
        #expect(ran.value == 0)
        #expect(cancels.all == ["seq", "b"])
        #expect(log.cancelSources(seq.id) == ["api"])
        #expect(log.cancelSources(b.id) == ["parent"])
        #expect(log.cancelSources(a.id).isEmpty)
        #expect(log.cancelSources(c.id).isEmpty)
        #expect(g.snapshot()[c.id]?.state == .notExecuted)
    }

    /// Whoever waits for a task (`value`, `wait`) wakes after its executing subtree is
    /// cancelled too: a program that stops its recorder or server when its root is cancelled
    /// must not write a final snapshot with subtasks still executing.
    @Test func waitersOfACancelledTaskWakeAfterItsSubtreeIsCancelled() {
        let (g, _) = virtualGraph()
        let leaf = timed(1, after: 100, graph: g)
        let inner = GraphTask.sequential([leaf], name: "inner")
        let root = GraphTask.concurrent([inner], name: "root")
        root.execute()
        let seen = Locked<[TaskState]>([])
        root.addWaiter { _ in seen.withLock { $0 = [inner.state, leaf.state] } }
        root.cancel()
        #expect(seen.get == [.cancelled, .cancelled])
        #expect(g.snapshot().nodes.values.allSatisfy { $0.state != .executing })
    }

    @Test func executingSubtasksAreCancelledRecursively() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let x = timed(1, after: 5, graph: g)
        let y = timed(2, after: 5, graph: g)
        let inner = GraphTask.sequential([x, y])
        let z = timed([3], after: 5, graph: g)
        let done = GraphTask<[Int], TestError>.succeed([4], graph: g)
        let outer = GraphTask.concurrent([inner, z, done])
        outer.execute()
        clock.advance(by: 1)
        outer.cancel()
        #expect(log.cancelSources(outer.id) == ["api"])
        #expect(log.cancelSources(inner.id) == ["parent"])
        #expect(log.cancelSources(x.id) == ["parent"])
        #expect(log.cancelSources(z.id) == ["parent"])
        #expect(log.cancelSources(y.id).isEmpty)
        #expect(log.cancelSources(done.id).isEmpty)
        #expect([outer.state, inner.state, x.state, z.state] == [.cancelled, .cancelled, .cancelled, .cancelled])
        #expect(y.state == .notExecuted)
        #expect(done.state == .completed)
        #expect(clock.nextDue == nil)
    }

    @Test func cancelledFromOutsideCancelsParentsUpward() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let a = timed(1, after: 5, graph: g)
        let b = timed(2, after: 5, graph: g)
        let seq = GraphTask.sequential([a, b])
        let sibling = timed([9], after: 5, graph: g)
        let root = GraphTask.concurrent([seq, sibling])
        let fired = Recorder<String>()
        root.completion { _ in fired.add("root completion") }.onCancel { fired.add("root cancel") }
        root.execute()
        a.cancel()
        clock.runUntilIdle()
        #expect(log.cancelSources(a.id) == ["api"])
        #expect(log.cancelSources(seq.id) == ["child"])
        #expect(log.cancelSources(root.id) == ["child"])
        #expect(log.cancelSources(sibling.id) == ["parent"])
        #expect(log.cancelSources(b.id).isEmpty)
        #expect(b.state == .notExecuted)
        #expect(sibling.state == .cancelled)
        #expect(fired.all == ["root cancel"])
    }

    @Test func allSettledAbsorbsACancelledMember() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let a = timed(1, after: 5, graph: g)
        let b = timed(2, after: 2, graph: g)
        let settled = GraphTask.allSettled([a, b])
        let top = GraphTask<[Settled<Int, TestError>], Never>.sequential([settled])
        top.execute()
        g.cancel(a.id, source: "keyboard")
        #expect(log.cancelSources(a.id) == ["keyboard"])
        #expect(log.cancelSources(settled.id).isEmpty)
        #expect(settled.state == .executing)
        #expect(top.state == .executing)
        clock.runUntilIdle()
        #expect(val(top) == [[.cancelled, .success(2)]])
    }

    @Test func cancellingANotExecutedSubtaskOfAnExecutingSequentialCancelsItNow() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let a = timed(1, after: 1, graph: g)
        let b = timed(2, after: 1, graph: g)
        let seq = GraphTask.sequential([a, b])
        seq.execute()
        b.cancel()
        #expect(seq.state == .cancelled)
        #expect(a.state == .cancelled)
        #expect(b.state == .cancelled)
        #expect(log.cancelSources(b.id) == ["api"])
        #expect(log.cancelSources(seq.id) == ["child"])
        #expect(log.cancelSources(a.id) == ["parent"])
        #expect(clock.nextDue == nil)
    }

    @Test func cancellingASubtaskOfANotExecutedCompositeCancelsIt() {
        let (g, _) = virtualGraph()
        let ran = Counter()
        let a = GraphTask<Int, TestError>(graph: g) { s, _ in
            ran.bump()
            s(1)
        }
        let b = timed(2, after: 1, graph: g)
        let seq = GraphTask.sequential([a, b])
        b.cancel()
        #expect(seq.state == .cancelled)
        #expect(a.state == .notExecuted)
        seq.execute()
        #expect(ran.value == 0)
    }

    @Test func aCompositeReachingAnAlreadyCancelledSubtaskReactsThen() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let a = GraphTask<Int, TestError>.succeed(1, graph: g)
        let b = GraphTask<Int, TestError>.succeed(2, graph: g)
        b.cancel() // before anybody adopted it
        let seq = GraphTask.sequential([a, b])
        #expect(seq.state == .notExecuted)
        seq.execute()
        #expect(a.state == .completed)
        #expect(seq.state == .cancelled)
        #expect(log.cancelSources(seq.id) == ["child"])

        let c = GraphTask<Int, TestError>.succeed(3, graph: g)
        c.cancel()
        let all = GraphTask.allSettled([GraphTask<Int, TestError>.succeed(1, graph: g), c]).execute()
        #expect(val(all) == [.success(1), .cancelled])
    }

    @Test func thenLinkCancelledFromOutsideCancelsTheThen() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let second = timed(2, after: 1, graph: g)
        let t = timed(1, after: 1, graph: g).then(second)
        t.execute()
        clock.advance(by: 1)
        #expect(second.state == .executing)
        second.cancel()
        #expect(t.state == .cancelled)
        #expect(log.cancelSources(t.id) == ["child"])
    }

    @Test func sourceIsDecidedByTheCallerNotTheLabel() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let a = forever(graph: g)
        let seq = GraphTask.sequential([a])
        seq.execute()
        g.cancel(a.id, source: "parent") // from outside, whatever the label says
        #expect(seq.state == .cancelled)
        #expect(log.cancelSources(a.id) == ["parent"])
        #expect(log.cancelSources(seq.id) == ["child"])
    }

    @Test func graphCancelRecordsItsSource() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let a = forever(graph: g).execute()
        let b = forever(graph: g).execute()
        g.cancel(a.id)
        g.cancel(b.id, source: "keyboard")
        #expect(a.state == .cancelled && b.state == .cancelled)
        #expect(log.cancelSources(a.id) == ["graph"])
        #expect(log.cancelSources(b.id) == ["keyboard"])
    }

    @Test func cancellingACompletedTaskDoesNothing() {
        let (g, _) = virtualGraph()
        let t = GraphTask.sequential([GraphTask<Int, TestError>.succeed(1, graph: g)]).execute()
        let log = EventLog(g)
        t.cancel()
        g.cancel(t.id)
        #expect(log.events.isEmpty)
        #expect(t.state == .completed)
    }

    @Test func onCancelOfEveryCancelledTaskRunsOnce() {
        let (g, clock) = virtualGraph()
        let counts = Recorder<String>()
        let leaves = (0..<3).map { i in timed(i, after: 5, name: "l\(i)", graph: g) }
        for l in leaves { l.onCancel { counts.add(l.name) } }
        let group = GraphTask.concurrent(leaves, name: "group")
        group.onCancel { counts.add("group") }.execute()
        leaves[1].cancel()
        group.cancel()
        leaves[0].cancel()
        g.cancel(group.id)
        clock.runUntilIdle()
        #expect(counts.all.sorted() == ["group", "l0", "l1", "l2"])
    }

    @Test func everySourceIsRecorded() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let api = forever(graph: g).execute()
        api.cancel()
        let viaGraph = forever(graph: g).execute()
        g.cancel(viaGraph.id)
        let custom = forever(graph: g).execute()
        g.cancel(custom.id, source: "keyboard") // a caller's own label
        let inner = forever(graph: g)
        let timeout = inner.timeout(seconds: 1).execute()
        clock.runUntilIdle()
        let loser = forever(graph: g)
        let ff = GraphTask.concurrent([loser, GraphTask<Int, TestError>.fail(TestError(), graph: g)]).execute()
        let child = forever(graph: g)
        let parentSeq = GraphTask.sequential([child]).execute()
        parentSeq.cancel()
        let kid = forever(graph: g)
        let upper = GraphTask.sequential([kid]).execute()
        kid.cancel()
        #expect(log.cancelSources(api.id) == ["api"])
        #expect(log.cancelSources(viaGraph.id) == ["graph"])
        #expect(log.cancelSources(custom.id) == ["keyboard"])
        #expect(log.cancelSources(inner.id) == ["timeout"])
        #expect(timeout.state == .completed)
        #expect(log.cancelSources(loser.id) == ["failFast"])
        #expect(ff.state == .completed)
        #expect(log.cancelSources(child.id) == ["parent"])
        #expect(log.cancelSources(upper.id) == ["child"])
    }

    @Test func cancelEventComesBeforeTheStateChange() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let t = forever(graph: g).execute()
        t.cancel()
        let last2 = Array(log.changes.suffix(2))
        #expect(
            last2 == [
                .cancelRequested(id: t.id, source: "api"),
                .stateChanged(id: t.id, state: .cancelled, failed: false, message: nil),
            ])
    }
}

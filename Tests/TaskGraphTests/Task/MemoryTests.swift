import Testing

@testable import TaskGraph

/// Weak references to check what is freed.
final class WeakBox: @unchecked Sendable { // only used on one thread
    weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}

/// Finished tasks do not keep each other alive; a graph nobody holds is freed.
@Suite struct MemoryTests {
    @Test func finishedTasksAndTheirGraphAreFreed() {
        var weak: [WeakBox] = []
        var graphBox = WeakBox(nil)
        do {
            let (g, clock) = virtualGraph()
            graphBox = WeakBox(g)
            let leaf = timed(1, after: 1, graph: g)
            let other = timed(2, after: 2, graph: g)
            let seq = GraphTask.sequential([leaf, other])
            let all = GraphTask.allSettled([timed(3, after: 1, graph: g)])
            let first = timed(4, after: 1, graph: g)
            let chain = first.then { v in timed(v + 1, after: 1, graph: g) }
            let mapped = chain.mapResult { $0 * 2 }.timeout(seconds: 10)
            let got = Recorder<Int>()
            seq.success { got.add($0.count) }.execute()
            all.execute()
            mapped.success { _ in got.add(-1) }.execute()
            clock.runUntilIdle()
            #expect(got.all.sorted() == [-1, 2])
            weak = [leaf, other, seq, all, first, chain, mapped].map { WeakBox($0) }
        }
        #expect(weak.allSatisfy { $0.object == nil })
        #expect(graphBox.object == nil)
    }

    @Test func finishedTasksDoNotKeepEachOtherAlive() {
        let (g, clock) = virtualGraph()
        let leaf = timed(1, after: 1, graph: g)
        var seq: GraphTask<[Int], TestError>? = GraphTask.sequential([leaf, timed(2, after: 1, graph: g)])
        seq!.execute()
        clock.runUntilIdle()
        let seqBox = WeakBox(seq)
        seq = nil
        #expect(seqBox.object == nil) // the leaf we still hold does not keep its parent alive
        #expect(leaf.state == .completed)

        var first: GraphTask<Int, TestError>? = timed(1, after: 1, graph: g)
        let then = first!.then { v in .succeed(v, graph: g) }
        then.execute()
        clock.runUntilIdle()
        let firstBox = WeakBox(first)
        first = nil
        #expect(firstBox.object == nil) // the settled `then` dropped its links
        #expect(val(then) == 1)
    }

    @Test func anExecutingTaskLivesUntilItSettles() {
        let (g, _) = virtualGraph()
        var box = WeakBox(nil)
        var id = NodeID(0)
        do {
            let t = forever(graph: g).execute()
            box = WeakBox(t)
            id = t.id
        }
        #expect(box.object != nil)
        #expect(g.snapshot()[id]?.state == .executing)
        g.cancel(id)
        #expect(box.object == nil)
        #expect(g.snapshot()[id]?.state == .cancelled)
    }

    @Test func aNotExecutedTaskNobodyHoldsIsFreed() {
        let (g, _) = virtualGraph()
        var box = WeakBox(nil)
        do {
            let t = GraphTask.sequential([GraphTask<Int, TestError>.succeed(1, graph: g)])
            box = WeakBox(t)
        }
        #expect(box.object == nil)
        #expect(g.snapshot().nodes.count == 2)
    }

    /// What a leaf's closure captures lives while the task may still run it, and no longer.
    final class Token: Sendable {}
    final class Holder: @unchecked Sendable { // only used on one thread
        var task: GraphTask<Int, TestError>?
    }

    /// A leaf whose closure captures a token nothing else holds (`settles`: it succeeds when
    /// run, else it never settles), and a weak reference to that token.
    private func leafHoldingToken(settles: Bool) -> (GraphTask<Int, TestError>, WeakBox) {
        let (g, _) = virtualGraph()
        let token = Token()
        let captured = WeakBox(token)
        let t = GraphTask<Int, TestError>(graph: g) { succeed, _ in
            _ = token
            if settles { succeed(1) }
        }
        return (t, captured)
    }

    @Test func aLeafLetsGoOfItsClosureWhenCancelledBeforeItRuns() {
        let (t, captured) = leafHoldingToken(settles: true)
        #expect(captured.object != nil)
        t.cancel()
        #expect(captured.object == nil)
        #expect(t.state == .cancelled)
    }

    @Test func aLeafLetsGoOfItsClosureOnceItRan() {
        let (t, captured) = leafHoldingToken(settles: false)
        t.execute()
        #expect(t.state == .executing)
        #expect(captured.object == nil)
        t.cancel()
    }

    @Test func aLeafWhoseClosureHoldsItIsFreedOnceCancelled() {
        let (g, _) = virtualGraph()
        var box = WeakBox(nil)
        do {
            let holder = Holder()
            let t = GraphTask<Int, TestError>(graph: g) { succeed, _ in succeed(holder.task == nil ? 0 : 1) }
            holder.task = t // task -> closure -> holder -> task
            box = WeakBox(t)
            t.cancel()
        }
        #expect(box.object == nil)
    }

    @Test func aCopyForRetryKeepsTheClosure() {
        let (g, _) = virtualGraph()
        let runs = Counter()
        let leaf = GraphTask<Int, TestError>(graph: g) { succeed, fail in
            runs.bump()
            if runs.value < 3 { fail(TestError()) } else { succeed(7) }
        }
        let r = leaf.retry(3).execute()
        #expect(r.outcome.flatMap { try? $0.get() } == 7)
        #expect(runs.value == 3)
    }
}

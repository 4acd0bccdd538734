import Testing

@testable import TaskGraph

/// `Graph.cancel` on a not-executed task the graph holds no reference to (a root only its
/// owner holds): the records change at once, and the task takes the cancel when touched.
@Suite struct UnreachableCancelTests {
    @Test func aCancelledRootNeverRunsAndReportsCancelled() {
        let (g, _) = virtualGraph()
        let ran = Recorder<Int>()
        let cancels = Recorder<Int>()
        let t = GraphTask<Int, TestError>(graph: g) { s, _ in
            ran.add(1)
            s(1)
        }
        t.onCancel { cancels.add(1) }
        g.cancel(t.id, source: "keyboard")
        #expect(g.snapshot()[t.id]?.state == .cancelled)
        #expect(t.state == .cancelled)
        #expect(cancels.all == [1])
        t.execute()
        #expect(ran.count == 0)
        #expect(t.isCancelled)
    }

    @Test func theUpwardRuleReachesNotExecutedParents() {
        let (g, _) = virtualGraph()
        let a = forever(name: "a", graph: g)
        let b = forever(name: "b", graph: g)
        let seq = GraphTask.sequential([a, b], name: "seq")
        g.cancel(b.id, source: "keyboard")
        let snap = g.snapshot()
        #expect(snap[b.id]?.state == .cancelled)
        #expect(snap[seq.id]?.state == .cancelled)
        #expect(snap[a.id]?.state == .notExecuted)
        seq.execute()
        #expect(seq.state == .cancelled)
        #expect(a.state == .notExecuted)
    }

    @Test func aTaskAdoptedAfterItsCancelCancelsItsNewParent() {
        let (g, clock) = virtualGraph()
        let late = forever(name: "late", graph: g)
        let chain = timed(1, after: 1, graph: g).then { _ in late }
        chain.execute()
        g.cancel(late.id, source: "keyboard")
        clock.runUntilIdle()
        #expect(late.state == .cancelled)
        #expect(chain.state == .cancelled)
        #expect(!g.snapshot().nodes.values.contains { $0.state == .executing })
    }
}

import Testing

@testable import TaskGraph

@Suite struct SmokeTests {
    @Test func leafSucceeds() {
        let (g, _) = virtualGraph()
        let got = Recorder<Int>()
        let t = GraphTask<Int, TestError>(graph: g) { s, _ in s(42) }
        t.success { got.add($0) }.execute()
        #expect(got.all == [42])
        #expect(t.state == .completed)
    }

    @Test func sequentialProgress() {
        let (g, _) = virtualGraph()
        let tasks = (0..<4).map { i in GraphTask<Int, TestError>.succeed(i, graph: g) }
        let seq = GraphTask.sequential(tasks)
        let p = Recorder<Double>()
        let v = Recorder<[Int]>()
        seq.progress { p.add($0.fraction) }.success { v.add($0) }.execute()
        #expect(p.all == [0.25, 0.5, 0.75, 1.0])
        #expect(v.all == [[0, 1, 2, 3]])
    }

    @Test func weights() {
        let (g, _) = virtualGraph()
        let tasks = [1.0, 3, 6].map { w in GraphTask<Int, TestError>.succeed(0, graph: g).setWeight(w) }
        let p = Recorder<Double>()
        GraphTask.sequential(tasks).progress { p.add($0.fraction) }.execute()
        #expect(p.all == [0.1, 0.4, 1.0])
    }

    @Test func cancelUpward() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let b = timed(2, after: 1, graph: g)
        let seq = GraphTask.sequential([a, b])
        seq.execute()
        b.cancel()
        #expect(seq.state == .cancelled)
        #expect(a.state == .cancelled)
        #expect(b.state == .cancelled)
        clock.runUntilIdle()
    }

    @Test func allSettledAbsorbs() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let b = timed(2, after: 2, graph: g)
        let all = GraphTask.allSettled([a, b])
        let got = Recorder<[Settled<Int, TestError>]>()
        all.success { got.add($0) }.execute()
        a.cancel()
        clock.runUntilIdle()
        #expect(got.all == [[.cancelled, .success(2)]])
    }
}

@Suite struct RetryCopySmokeTests {
    @Test func retryOfCompositeMakesFreshAttempts() {
        let (g, _) = virtualGraph()
        let runs = Recorder<Int>()
        let leaf = GraphTask<Int, TestError>(name: "flaky", graph: g) { s, f in
            runs.add(1)
            if runs.count < 3 { f(TestError()) } else { s(7) }
        }
        let seq = GraphTask.sequential([GraphTask<Int, TestError>.succeed(1, graph: g), leaf], name: "seq")
        let r = seq.retry(5, name: "retry")
        let got = Recorder<[Int]>()
        r.success { got.add($0) }.execute()
        #expect(got.all == [[1, 7]])
        #expect(runs.count == 3)
        let snap = g.snapshot()
        #expect(snap[r.id]?.children.count == 3)
        #expect(snap[r.id]?.children.allSatisfy { snap[$0]?.kind == "sequential" } == true)
        #expect(snap[r.id]?.children.map { snap[$0]?.name } == ["seq", "seq (attempt 2/5)", "seq (attempt 3/5)"])
    }
}

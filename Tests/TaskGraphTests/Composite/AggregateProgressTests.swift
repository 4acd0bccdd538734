import Testing

@testable import TaskGraph

/// `a` and `b` equal up to floating-point rounding, element by element.
func close(_ a: [Double], _ b: [Double], tolerance: Double = 1e-9) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}

/// Weighted, aggregated progress of composites.
@Suite struct AggregateProgressTests {
    @Test func fourEqualSubtasks() {
        let (g, _) = virtualGraph()
        let makers: [([GraphTask<Int, TestError>]) -> GraphTask<[Int], TestError>] = [
            { GraphTask.sequential($0) }, { GraphTask.concurrent($0) },
        ]
        for make in makers {
            let tasks = (0..<4).map { GraphTask<Int, TestError>.succeed($0, graph: g) }
            let p = Recorder<Double>()
            make(tasks).progress { p.add($0.fraction) }.execute()
            #expect(p.all == [0.25, 0.5, 0.75, 1.0])
        }
        let tasks = (0..<4).map { GraphTask<Int, TestError>.succeed($0, graph: g) }
        let p = Recorder<Double>()
        GraphTask.allSettled(tasks).progress { p.add($0.fraction) }.execute()
        #expect(p.all == [0.25, 0.5, 0.75, 1.0])
    }

    @Test func groupsReportTheWeightedMeanOfSubtasksAtKnownFractions() {
        let (g, _) = virtualGraph()
        /// Three pending subtasks weighing 1, 1 and 2.
        func three() -> [(GraphTask<Int, TestError>, Resolver<Int, TestError>)] {
            (0..<3).map { i in
                let (t, r) = GraphTask<Int, TestError>.pending(graph: g)
                return (t.setWeight(i == 2 ? 2 : 1), r)
            }
        }
        // concurrent: at 0.5, 0.25, 0.5 it is (0.5 + 0.25 + 2 * 0.5) / 4; the first done, 2.25 / 4.
        let c = three()
        let concurrent = GraphTask.concurrent(c.map(\.0))
        let p = Recorder<Double>()
        concurrent.progress { p.add($0.fraction) }.execute()
        c[0].1.progress(TaskProgress(0.5))
        c[1].1.progress(TaskProgress(0.25))
        c[2].1.progress(TaskProgress(0.5))
        #expect(concurrent.currentProgress.fraction == 0.4375)
        _ = c[0].1.succeed(0)
        #expect(concurrent.currentProgress.fraction == 0.5625)
        #expect(p.all == [0.125, 0.1875, 0.4375, 0.5625])
        // allSettled: a settled subtask counts 1, failed or not.
        let a = three()
        let all = GraphTask.allSettled(a.map(\.0))
        all.execute()
        a[1].1.progress(TaskProgress(0.25))
        a[2].1.progress(TaskProgress(0.5))
        _ = a[0].1.fail(TestError())
        #expect(all.currentProgress.fraction == 0.5625)
        // sequential: one subtask at a time, those still to run count 0.
        let s = three()
        let seq = GraphTask.sequential(s.map(\.0))
        seq.execute()
        s[0].1.progress(TaskProgress(0.5))
        #expect(seq.currentProgress.fraction == 0.125)
        _ = s[0].1.succeed(0)
        s[1].1.progress(TaskProgress(0.25))
        #expect(seq.currentProgress.fraction == 0.3125)
        // A resolver's last copy cancels its task when it goes: an optimized build releases
        // the arrays right after their last use, before the checks above.
        withExtendedLifetime((c, a, s)) {}
    }

    @Test func weightsOneThreeSix() {
        let (g, _) = virtualGraph()
        let tasks = [1.0, 3, 6].map { GraphTask<Int, TestError>.succeed(0, graph: g).setWeight($0) }
        let seq = GraphTask.sequential(tasks)
        let p = Recorder<Double>()
        seq.progress { p.add($0.fraction) }.execute()
        #expect(p.all == [0.1, 0.4, 1.0])
        #expect(g.snapshot()[seq.id]?.progress.fraction == 1)
    }

    @Test func zeroWeightDoesNotCount() {
        let (g, clock) = virtualGraph()
        let a = timed(0, after: 1, graph: g).setWeight(0)
        let b = timed(0, after: 2, graph: g)
        let p = Recorder<Double>()
        GraphTask.sequential([a, b]).progress { p.add($0.fraction) }.execute()
        clock.advance(by: 1)
        #expect(p.all.isEmpty) // a finished but does not count
        clock.runUntilIdle()
        #expect(p.all == [1.0])
    }

    @Test func allZeroWeightsCountEqually() {
        let (g, _) = virtualGraph()
        let tasks = (0..<4).map { GraphTask<Int, TestError>.succeed($0, graph: g).setWeight(0) }
        let p = Recorder<Double>()
        GraphTask.sequential(tasks).progress { p.add($0.fraction) }.execute()
        #expect(p.all == [0.25, 0.5, 0.75, 1.0])
    }

    @Test func runningSubtasksCountTheirFraction() {
        let (g, clock) = virtualGraph()
        let a = stepped([0.5], graph: g) // t=1: 0.5, t=2: done
        let b = stepped([0.2, 0.4], graph: g) // t=1: 0.2, t=2: 0.4, t=3: done
        let p = Recorder<Double>()
        GraphTask.concurrent([a, b]).progress { p.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(close(p.all, [0.25, 0.35, 0.6, 0.7, 1.0]), "\(p.all)")

        let c = stepped([0.5], graph: g)
        let d = GraphTask<Int, TestError>.succeed(1, graph: g)
        let q = Recorder<Double>()
        GraphTask.sequential([c, d]).progress { q.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(q.all == [0.25, 0.5, 1.0])
    }

    @Test func aggregateNeverDecreases() {
        let (g, clock) = virtualGraph()
        let a = timed(0, after: 1, graph: g)
        let b = stepped([0.5], graph: g)
        let p = Recorder<Double>()
        let seq = GraphTask.sequential([a, b])
        seq.progress { p.add($0.fraction) }.execute()
        clock.advance(by: 1)
        #expect(p.all == [0.5])
        b.setWeight(9) // would pull the aggregate down to 0.1: not reported
        #expect(seq.currentProgress.fraction == 0.5)
        clock.advance(by: 1) // b reports 0.5: (1 + 9 * 0.5) / 10 = 0.55
        clock.runUntilIdle()
        #expect(close(p.all, [0.5, 0.55, 1.0]), "\(p.all)")
        #expect(g.snapshot()[seq.id]?.progress.fraction == 1)
    }

    @Test func weightChangeThatWouldLowerTheAggregateIsNotReported() {
        let (g, clock) = virtualGraph()
        let a = timed(0, after: 1, graph: g)
        let b = timed(0, after: 2, graph: g)
        let p = Recorder<Double>()
        let seq = GraphTask.sequential([a, b])
        seq.progress { p.add($0.fraction) }.execute()
        clock.advance(by: 1)
        b.setWeight(3) // true value 0.25 now: the aggregate stays at 0.5
        #expect(seq.currentProgress.fraction == 0.5)
        clock.runUntilIdle()
        #expect(p.all == [0.5, 1.0])
    }

    @Test func thenAggregatesLikeATwoStepSequential() {
        let (g, clock) = virtualGraph()
        let p = Recorder<Double>()
        stepped([0.5], graph: g).then(stepped([0.5], graph: g)).progress { p.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(p.all == [0.25, 0.5, 0.75, 1.0])

        let q = Recorder<Double>()
        stepped([0.5], graph: g).then { _ in stepped([0.5], graph: g) }.progress { q.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(q.all == [0.25, 0.5, 0.75, 1.0])
    }

    @Test func recoverAggregatesLikeATwoStepSequential() {
        let (g, clock) = virtualGraph()
        // Skipped recovery counts 1.
        let p = Recorder<Double>()
        stepped([0.5], graph: g).recover(stepped([0.5], graph: g)).progress { p.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(p.all == [0.25, 1.0])

        // Failure: the failed first link counts 1, then the recovery runs.
        let q = Recorder<Double>()
        let failing = GraphTask<Int, TestError>.fail(TestError(), graph: g)
        failing.recover { _ in stepped([0.5], graph: g) }.progress { q.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(q.all == [0.5, 0.75, 1.0])
    }

    @Test func mapProgressScalesIntoRange() {
        let (g, _) = virtualGraph()
        let (inner, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let p = Recorder<Double>()
        let mapped = inner.mapProgress(byScalingFractionIntoRange: (0.6, 1))
        mapped.progress { p.add($0.fraction) }.execute()
        resolver.progress(TaskProgress(0.5))
        #expect(p.all == [0.8])
        #expect(g.snapshot()[mapped.id]?.progress.fraction == 0.8)
        #expect(g.snapshot()[inner.id]?.progress.fraction == 0.5)
        resolver.succeed(1)
        #expect(p.all == [0.8, 1.0])
    }

    @Test func mapProgressTransformsInfo() {
        let (g, _) = virtualGraph()
        let (inner, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        let p = Recorder<TaskProgress>()
        inner.mapProgress { TaskProgress($0.fraction / 2, info: "half") }.progress { p.add($0) }.execute()
        resolver.progress(TaskProgress(0.5))
        #expect(p.all == [TaskProgress(0.25, info: "half")])
    }

    @Test func adaptersReportTheirInnerProgress() {
        let (g, clock) = virtualGraph()
        let p = Recorder<Double>()
        stepped([0.5], graph: g).mapResult { $0 + 1 }.progress { p.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(p.all == [0.5, 1.0])

        let q = Recorder<Double>()
        stepped([0.3], graph: g).timeout(seconds: 10).progress { q.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(q.all == [0.3, 1.0])
    }

    @Test func retryReportsTheCurrentAttemptNeverGoingDown() {
        let (g, clock) = virtualGraph()
        let attempt = Counter()
        let t = GraphTask<Int, TestError>(graph: g) { succeed, fail, progress in
            attempt.bump()
            let n = attempt.value
            g.clock.schedule(after: 1) { progress(TaskProgress(n == 1 ? 0.6 : 0.3)) }
            g.clock.schedule(after: 2) {
                progress(TaskProgress(n == 1 ? 0.6 : 0.8))
                if n == 1 { fail(TestError()) } else { succeed(n) }
            }
        }
        let p = Recorder<Double>()
        let r = t.retry(2)
        r.progress { p.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(p.all == [0.6, 0.8, 1.0])
        #expect(val(r) == 2)
    }

    @Test func pendingSubtaskCountsZeroUntilItSettles() {
        let (g, _) = virtualGraph()
        let (a, ra) = GraphTask<Int, TestError>.pending(graph: g)
        let b = GraphTask<Int, TestError>.succeed(2, graph: g)
        let p = Recorder<Double>()
        let v = Recorder<[Int]>()
        let seq = GraphTask.sequential([a, b])
        seq.progress { p.add($0.fraction) }.success { v.add($0) }.execute()
        #expect(p.all.isEmpty)
        #expect(b.state == .notExecuted)
        ra.succeed(1)
        #expect(p.all == [0.5, 1.0])
        #expect(v.all == [[1, 2]])
    }

    @Test func allSettledCountsACancelledMemberAsSettled() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let b = timed(2, after: 2, graph: g)
        let p = Recorder<Double>()
        GraphTask.allSettled([a, b]).progress { p.add($0.fraction) }.execute()
        b.cancel()
        #expect(p.all == [0.5])
        clock.runUntilIdle()
        #expect(p.all == [0.5, 1.0])
    }

    @Test func thenLinksCountWithTheirWeights() {
        let (g, clock) = virtualGraph()
        let p = Recorder<Double>()
        timed(1, after: 1, graph: g).setWeight(3).then(timed(2, after: 1, graph: g))
            .progress { p.add($0.fraction) }.execute()
        clock.runUntilIdle()
        #expect(p.all == [0.75, 1.0])
    }
}

import Testing

@testable import TaskGraph

/// `after(_:)` (Composition, "after"): the receiver runs only after every prerequisite
/// succeeded, is skipped (cancel source `needs`) otherwise, and prerequisites run once.
@Suite struct AfterTests {
    /// The order in which leaves started, by name.
    final class Starts: Sendable {
        private let names = Locked<[String]>([])
        var all: [String] { names.get }
        func leaf(_ name: String, after seconds: Double, fail: Bool = false, graph: Graph) -> GraphTask<Int, TestError>
        {
            GraphTask<Int, TestError>(name: name, graph: graph) { task, succeed, failure, _ in
                self.names.withLock { $0.append(name) }
                let t = graph.clock.schedule(after: seconds) { if fail { failure(TestError()) } else { succeed(1) } }
                task.onCancel { t.cancel() }
            }
        }
    }

    @Test func theReceiverStartsWhenEveryPrerequisiteSucceeded() {
        let (g, clock) = virtualGraph()
        let s = Starts()
        let core = s.leaf("core", after: 2, graph: g)
        let docs = s.leaf("docs", after: 3, graph: g)
        let test = s.leaf("test", after: 1, graph: g).after([core, docs])
        // The tree as written: core and docs in their group, test beside them.
        let ci = GraphTask.concurrent([test, core, docs], name: "ci", graph: g).execute()
        #expect(s.all == ["core", "docs"])
        #expect(test.kind == NodeKind.after)
        #expect(test.name == "test")
        #expect(g.snapshot()[test.id]?.progress.info == "waiting for core, docs")
        clock.advance(by: 2)
        #expect(s.all == ["core", "docs"])
        #expect(g.snapshot()[test.id]?.progress.info == "waiting for docs")
        clock.advance(by: 1)
        #expect(s.all == ["core", "docs", "test"])
        #expect(g.snapshot()[test.id]?.progress.info == nil)
        clock.runUntilIdle()
        #expect(clock.now == 4)
        #expect(val(ci) == [1, 1, 1])
        // Prerequisites adopted elsewhere stay there: test's node has one child, the receiver.
        #expect(g.snapshot()[test.id]?.children.count == 1)
        #expect(g.snapshot()[core.id]?.parent == ci.id)
    }

    @Test func theInfoNamesTheFirstTenPrerequisitesStillToComeAndCountsTheRest() {
        let (g, clock) = virtualGraph()
        let s = Starts()
        let needed = (0..<12).map { s.leaf("p\($0)", after: Double($0 + 1), graph: g) }
        let test = s.leaf("test", after: 1, graph: g).after(needed)
        let ci = GraphTask.concurrent([test] + needed, name: "ci", graph: g).execute()
        #expect(g.snapshot()[test.id]?.progress.info == "waiting for p0, p1, p2, p3, p4, p5, p6, p7, p8, p9 and 2 more")
        clock.advance(by: 1)
        #expect(
            g.snapshot()[test.id]?.progress.info == "waiting for p1, p2, p3, p4, p5, p6, p7, p8, p9, p10 and 1 more")
        clock.advance(by: 1)
        #expect(g.snapshot()[test.id]?.progress.info == "waiting for p2, p3, p4, p5, p6, p7, p8, p9, p10, p11")
        clock.advance(by: 10)
        #expect(s.all.last == "test")
        #expect(g.snapshot()[test.id]?.progress.info == nil)
        clock.runUntilIdle()
        #expect(ci.state == .completed)
    }

    @Test func aFailedPrerequisiteSkipsTheReceiverWithSourceNeeds() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let s = Starts()
        let core = s.leaf("core", after: 1, fail: true, graph: g)
        let inner = s.leaf("test", after: 1, graph: g)
        let test = inner.after([core])
        let pkg = s.leaf("package", after: 1, graph: g).after([test])
        let ci = GraphTask.allSettled([core, test, pkg], name: "ci", graph: g).execute()
        clock.runUntilIdle()
        #expect(s.all == ["core"])
        #expect(inner.state == .notExecuted)
        #expect(test.state == .cancelled)
        #expect(log.cancelSources(test.id) == [CancelSource.needs])
        #expect(g.snapshot()[test.id]?.progress.info == "needs core, which failed")
        // Transitive: package needs test, which was skipped.
        #expect(pkg.state == .cancelled)
        #expect(g.snapshot()[pkg.id]?.progress.info == "needs test, which was skipped")
        #expect(ci.state == .completed)
    }

    @Test func aPrerequisiteThatNeverRunsSkipsTheReceiver() {
        let (g, clock) = virtualGraph()
        let s = Starts()
        let first = s.leaf("first", after: 1, fail: true, graph: g)
        let build = s.leaf("build", after: 1, graph: g)
        let seq = GraphTask.sequential([first, build], name: "seq", graph: g) { _ in 0 }
        let test = s.leaf("test", after: 1, graph: g).after([build])
        GraphTask.allSettled([seq, test], graph: g).execute()
        clock.runUntilIdle()
        #expect(s.all == ["first"])
        #expect(test.state == .cancelled)
        #expect(g.snapshot()[test.id]?.progress.info == "needs build, which was skipped")
    }

    @Test func underASequentialTheOrderIsKeptAndNeedsAddToIt() {
        let (g, clock) = virtualGraph()
        let s = Starts()
        let build = s.leaf("build", after: 5, graph: g)
        let setup = s.leaf("setup", after: 1, graph: g)
        let test = s.leaf("test", after: 1, graph: g).after([build])
        let seq = GraphTask.sequential([setup, build], name: "seq", graph: g) { _ in 0 }
        let all = GraphTask.concurrent([test, seq], graph: g).execute()
        #expect(s.all == ["setup"]) // build is not started out of its sequential's order
        clock.runUntilIdle()
        #expect(s.all == ["setup", "build", "test"])
        #expect(clock.now == 7)
        #expect(all.state == .completed)
    }

    @Test func anUnadoptedPrerequisiteIsAdoptedAndRunsOnceForEveryTaskThatNeedsIt() {
        let (g, clock) = virtualGraph()
        let s = Starts()
        let shared = s.leaf("shared", after: 1, graph: g)
        let a = s.leaf("a", after: 1, graph: g).after([shared])
        let b = s.leaf("b", after: 1, graph: g).after([shared])
        let both = GraphTask.concurrent([a, b], graph: g).execute()
        clock.runUntilIdle()
        #expect(s.all == ["shared", "a", "b"])
        #expect(val(both) == [1, 1])
        #expect(g.snapshot()[shared.id]?.parent == a.id)
        #expect(g.snapshot()[a.id]?.children.last == shared.id)
        #expect(g.snapshot()[a.id]?.children.count == 2)
        #expect(g.snapshot()[b.id]?.children.count == 1)
    }

    @Test func cancellingAWaitingTaskLeavesPrerequisitesAdoptedElsewhereRunning() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let s = Starts()
        let core = s.leaf("core", after: 5, graph: g)
        let test = s.leaf("test", after: 1, graph: g).after([core])
        let ci = GraphTask.allSettled([core, test], graph: g).execute()
        clock.advance(by: 1)
        test.cancel()
        #expect(test.state == .cancelled)
        #expect(log.cancelSources(test.id) == [CancelSource.api])
        #expect(core.state == .executing)
        clock.runUntilIdle()
        #expect(core.state == .completed)
        #expect(s.all == ["core"])
        #expect(ci.state == .completed)
    }

    @Test func cancellingAWaitingTaskCancelsThePrerequisiteItAdopted() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let s = Starts()
        let core = s.leaf("core", after: 5, graph: g)
        let test = s.leaf("test", after: 1, graph: g).after([core]).execute()
        clock.advance(by: 1)
        test.cancel()
        #expect(core.state == .cancelled)
        #expect(log.cancelSources(core.id) == [CancelSource.parent])
        clock.runUntilIdle()
        #expect(s.all == ["core"])
    }

    @Test func aSucceededPrerequisiteCountsAtOnceAndFailuresPassThrough() {
        let (g, clock) = virtualGraph()
        let done = GraphTask<Int, TestError>.succeed(1, name: "done", graph: g)
        _ = done.mapResult { $0 }.execute() // adopted and settled
        let t = timed(3, after: 1, name: "t", graph: g, fail: true).after([done]).execute()
        #expect(t.state == .executing)
        clock.runUntilIdle()
        #expect(t.state == .completed)
        #expect(t.outcome.map { if case .failure = $0 { true } else { false } } == true)
    }

    @Test func retryCopiesTheReceiverAndWaitsForTheSamePrerequisites() {
        let (g, clock) = virtualGraph()
        let s = Starts()
        let core = s.leaf("core", after: 1, graph: g)
        let flaky = Counter()
        let leaf = GraphTask<Int, TestError>(name: "flaky", graph: g) { task, succeed, failure, _ in
            flaky.bump()
            let n = flaky.value
            let t = g.clock.schedule(after: 1) { if n < 2 { failure(TestError()) } else { succeed(n) } }
            task.onCancel { t.cancel() }
        }
        let r = leaf.after([core]).retry(3)
        let all = GraphTask.allSettled([core.mapResult { $0 }, r.mapResult { $0 }], graph: g).execute()
        clock.runUntilIdle()
        #expect(s.all == ["core"])
        #expect(flaky.value == 2)
        #expect(val(r) == 2)
        #expect(all.state == .completed)
    }
}

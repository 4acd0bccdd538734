import Foundation
import Testing

@testable import TaskGraph

/// Retention of children (`Retention.maxFinishedChildren`/`maxFailedChildren`) and the
/// summaries of what retention dropped (`GraphNode.droppedChildren`, `Graph.droppedRoots`).
@Suite struct ChildRetentionTests {
    /// Within the sketch's stated error (1 %).
    func near(_ value: Double?, _ expected: Double) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= expected * 0.01
    }

    /// Exact but for the virtual clock's sums of Doubles.
    func exact(_ value: Double?, _ expected: Double) -> Bool {
        guard let value else { return false }
        return abs(value - expected) < 1e-9
    }

    /// A running scope "server" runs 20 requests one after the other, request i taking i ms;
    /// requests 5, 10, 15 and 20 fail. Returns the server's id.
    func serve(_ g: Graph, _ clock: VirtualClock, check: (NodeID) -> Void = { _ in }) async -> NodeID {
        await withGraphTask("server", graph: g) { server in
            for i in 1...20 {
                _ = try? await withGraphTask("req \(i)") { _ throws(TestError) in
                    clock.advance(by: Double(i) / 1000)
                    if i % 5 == 0 { throw TestError(code: i) }
                }
            }
            check(server.id)
            return server.id
        }
    }

    @Test func aRunningScopeKeepsItsLastFinishedChildrenFailedOnesLongerAndSummarizesTheRest() async {
        let clock = VirtualClock()
        let g = Graph(
            clock: clock, retention: Retention(maxFinishedRoots: 10, maxFinishedChildren: 4, maxFailedChildren: 2))
        let log = EventLog(g)
        var whileRunning: GraphSnapshot?
        let server = await serve(g, clock) { _ in whileRunning = g.snapshot() }
        let snap = try! #require(whileRunning)
        let node = try! #require(snap[server])
        // Kept: the last two failed (15, 20) and the last two succeeded (18, 19).
        #expect(node.children.map { snap[$0]!.name } == ["req 15", "req 18", "req 19", "req 20"])
        // Dropped: 1-4, 6-9, 11-14, 16, 17 succeeded (14), 5 and 10 failed (2).
        let summary = try! #require(node.droppedChildren)
        #expect(summary.succeeded == 14)
        #expect(summary.failed == 2)
        #expect(summary.cancelled == 0)
        #expect(summary.count == 16)
        // Durations 1-14, 16, 17 ms: nearest rank 8 of 16 is 8 ms, rank 16 is 17 ms.
        #expect(exact(summary.p50, 0.008), "\(String(describing: summary.p50))")
        #expect(exact(summary.p95, 0.017), "\(String(describing: summary.p95))")
        #expect(abs(summary.max! - 0.017) < 1e-9) // exact, but for the clock's sums
        // Only the graph's nodes that exist: the server, its kept children.
        #expect(snap.nodes.count == 5)
        // Events tell the same: a replica equals the snapshot, summaries included.
        #expect(log.replica.snapshot == g.snapshot())
        let last = log.changes.last { if case .summary(server?, _, _) = $0 { true } else { false } }
        #expect(last == .summary(id: server, root: nil, summary: summary))
    }

    @Test func childrenOfAFinishedParentAreNotDroppedAndNoLimitMeansNone() async {
        let clock = VirtualClock()
        let kept = Graph(clock: clock) // no retention: keeps every child
        let server = await serve(kept, clock)
        #expect(kept.snapshot()[server]?.children.count == 20)
        #expect(kept.snapshot()[server]?.droppedChildren == nil)
        #expect(kept.droppedRoots.isEmpty)
    }

    @Test func negativeLimitsCountAsZero() async {
        let r = Retention(maxFinishedRoots: -1, maxFinishedChildren: -5, maxFailedChildren: -2)
        #expect(r.maxFinishedRoots == 0)
        #expect(r.maxFinishedChildren == 0)
        #expect(r.maxFailedChildren == 0)
        #expect(
            Retention(maxFinishedRoots: 5)
                == Retention(maxFinishedRoots: 5, maxFinishedChildren: 1000, maxFailedChildren: 100))
        #expect(Retention.sharedDefault.maxFinishedChildren == 1000)
        #expect(Retention.sharedDefault.maxFailedChildren == 100)
        let clock = VirtualClock()
        // Set as a property, a negative limit counts as 0 too.
        var policy = Retention(maxFinishedRoots: 10)
        policy.maxFinishedChildren = -3
        let g = Graph(clock: clock, retention: policy)
        var children = -1
        _ = await serve(g, clock) { children = g.snapshot()[$0]?.children.count ?? -1 }
        #expect(children == 0)
    }

    @Test func finishedRootsAreSummarizedPerNameAndTheCountsCoverTheWholeRun() async {
        let clock = VirtualClock()
        let g = Graph(clock: clock, retention: Retention(maxFinishedRoots: 2))
        let log = EventLog(g)
        for _ in 0..<10 {
            await withGraphTask("/fast", graph: g) { _ in clock.advance(by: 0.003) }
        }
        for i in 0..<5 {
            _ = try? await withGraphTask("/slow", graph: g) { _ throws(TestError) in
                clock.advance(by: 0.1 * Double(i + 1))
                if i == 0 { throw TestError() }
            }
        }
        // Kept: the last two /slow; dropped: ten /fast, three /slow (one failed).
        let roots = g.droppedRoots
        #expect(roots.keys.sorted() == ["/fast", "/slow"])
        #expect(roots["/fast"]?.succeeded == 10)
        #expect(exact(roots["/fast"]?.p50, 0.003))
        #expect(abs(roots["/fast"]!.max! - 0.003) < 1e-9)
        #expect(roots["/slow"]?.succeeded == 2)
        #expect(roots["/slow"]?.failed == 1)
        #expect(abs(roots["/slow"]!.max! - 0.3) < 1e-9)
        #expect(exact(roots["/slow"]?.p50, 0.2))
        let snap = g.snapshot()
        #expect(snap.droppedRoots == roots)
        #expect(snap.roots.count == 2)
        // Live and dropped together: every root of the run.
        let total = snap.roots.count + roots.values.reduce(0) { $0 + $1.count }
        #expect(total == 15)
        #expect(log.replica.snapshot == snap)
    }

    /// Roots finished on four threads (each its own stripe) are one tally per name: every
    /// `summary` event carries the whole graph's counts, so the last one is what the graph
    /// has (a tally per stripe made each event tell one thread's share).
    @Test func rootsDroppedOnSeveralThreadsAreSummarizedAsOneRun() {
        let g = Graph(retention: Retention(maxFinishedRoots: 1))
        let log = EventLog(g)
        OneGraphStress.onThreads(4) { _ in
            for _ in 0..<300 { GraphTask<Int, TestError>(name: "/r", graph: g) { s, _ in s(1) }.execute() }
        }
        let snap = g.snapshot()
        let dropped = snap.droppedRoots["/r"]?.succeeded ?? 0
        #expect(dropped + snap.roots.count == 1200)
        #expect(snap.roots.count <= 4) // one kept a stripe
        let last = log.changes.last { if case .summary(nil, "/r", _) = $0 { true } else { false } }
        guard case .summary(_, _, let summary)? = last else {
            Issue.record("no summary of /r")
            return
        }
        #expect(summary.succeeded == dropped)
        #expect(log.replica.snapshot.droppedRoots == snap.droppedRoots)
    }

    /// A snapshot reserves room for the live nodes, not for every node the graph has made: a
    /// server's resync after a million requests reserved 556 MB for 4,000 nodes.
    @Test func aSnapshotOfALongRunningGraphReservesForItsLiveNodesOnly() {
        let g = Graph(retention: Retention(maxFinishedRoots: 2))
        for _ in 0..<5000 { GraphTask<Int, TestError>(name: "/r", graph: g) { s, _ in s(1) }.execute() }
        #expect(g.snapshot().nodes.count == 2)
        #expect(g.nodeCountHint() == 2)
    }

    @Test func aLateRecorderAndAReplayOfTheLogSeeTheSameSummaries() async throws {
        let clock = VirtualClock()
        let g = Graph(
            clock: clock, retention: Retention(maxFinishedRoots: 1, maxFinishedChildren: 3, maxFailedChildren: 1))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("child-retention-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let early = dir.appendingPathComponent("early.log").path
        let late = dir.appendingPathComponent("late.log").path
        let whole = try g.record(to: early)
        for _ in 0..<3 { await withGraphTask("/warm", graph: g) { _ in clock.advance(by: 0.01) } }
        var lateRecording: (any GraphObservation)?
        var live: GraphSnapshot?
        _ = await serve(g, clock) { _ in
            lateRecording = try? g.record(to: late) // after the server dropped children
            live = g.snapshot()
        }
        let end = g.snapshot()
        whole.cancel()
        lateRecording?.cancel()
        let server = try #require(live?.roots.first { live?[$0]?.name == "server" })
        let expected = try #require(live?[server]?.droppedChildren)
        #expect(expected.count == 17) // kept: one failed (20), two succeeded (18, 19)
        for path in [early, late] {
            let replay = try LogReader.load(path: path)
            let final = replay.finalSnapshot
            #expect(final.droppedRoots == end.droppedRoots, "\(path)")
            #expect(final.droppedRoots["/warm"]?.succeeded == 3, "\(path)")
            // The server, the last root, is kept with its summary.
            #expect(final[server]?.droppedChildren == end[server]?.droppedChildren, "\(path)")
        }
        // The late log's first snapshot carries the server's summary as it was then.
        let lateReplay = try LogReader.load(path: late)
        let first = lateReplay.snapshot(afterEvents: 0)
        #expect(first[server]?.droppedChildren == expected)
        #expect(first.droppedRoots["/warm"]?.succeeded == 2) // the third was the last root then
    }

    @Test func theSketchKeepsQuantilesWithinOnePercentInConstantMemory() {
        var sketch = DurationSketch()
        for i in 1...100_000 { sketch.add(Double(i) / 100_000) } // 10 µs ... 1 s
        #expect(sketch.buckets.count == DurationSketch.bucketCount)
        #expect(sketch.count == 100_000)
        #expect(sketch.max == 1)
        #expect(near(sketch.quantile(0.5), 0.5))
        #expect(near(sketch.quantile(0.95), 0.95))
        #expect(sketch.exact == nil)
        var empty = DurationSketch()
        #expect(empty.quantile(0.5) == nil)
        empty.add(0)
        #expect(empty.quantile(0.5) == 0)
    }

    @Test func upTo64DurationsTheQuantilesAreExactAndBeyondThemTheSketchsWithinOnePercent() {
        var a = DurationSketch()
        var b = DurationSketch()
        for i in 1...32 { a.add(Double(i) * 0.0011) }
        for i in 33...64 { b.add(Double(i) * 0.0011) }
        a.merge(b)
        // Nearest rank 32 of 64 and 61 of 64: exact, where a bucket's midpoint is not.
        #expect(a.quantile(0.5) == 32 * 0.0011)
        #expect(a.quantile(0.95) == 61 * 0.0011)
        a.add(0.0011)
        #expect(a.exact == nil)
        #expect(a.quantile(0.5) != 32 * 0.0011)
        #expect(near(a.quantile(0.5), 32 * 0.0011))
    }
}

import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// The recorded graph: snapshots, events, observers, ids, kinds, text limits, retention.
@Suite struct GraphTests {
    @Test func snapshotReflectsEveryTransitionBeforeTheCall() {
        let (g, _) = virtualGraph()
        let (t, resolver) = GraphTask<Int, TestError>.pending(graph: g)
        #expect(g.snapshot()[t.id]?.state == .executing)
        let done = DispatchSemaphore(value: 0)
        Thread {
            resolver.progress(TaskProgress(0.5, info: "half"))
            done.signal()
        }.start()
        done.wait()
        #expect(g.snapshot()[t.id]?.progress == TaskProgress(0.5, info: "half"))
        #expect(t.currentProgress == TaskProgress(0.5, info: "half"))
        Thread {
            resolver.fail(TestError(code: 4))
            done.signal()
        }.start()
        done.wait()
        let node = g.snapshot()[t.id]
        #expect(node?.state == .completed && node?.failed == true && node?.message == "test error 4")
        #expect(t.state == .completed)
    }

    @Test func eventSequenceNumbersHaveNoGaps() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let tasks = (0..<5).map { timed($0, after: Double($0), graph: g) }
        GraphTask.concurrent(tasks).execute()
        clock.runUntilIdle()
        let seqs = log.events.map(\.sequence)
        #expect(seqs.count > 10)
        #expect(seqs == Array(1...UInt64(seqs.count)))
        #expect(g.snapshot().sequence == UInt64(seqs.count))
    }

    @Test func eventsCarryTheVirtualClockTime() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let t = timed(1, after: 2.5, graph: g)
        clock.advance(by: 1)
        t.execute()
        clock.runUntilIdle()
        #expect(log.events.map(\.time) == [0, 1, 3.5])
        #expect(
            log.changes == [
                .added(id: t.id, kind: "task", name: "task", weight: 1, parent: nil, index: nil),
                .stateChanged(id: t.id, state: .executing, failed: false, message: nil),
                .stateChanged(id: t.id, state: .completed, failed: false, message: nil),
            ])
    }

    @Test func observeIsSynchronousOrderedAndOnTheCausingThread() {
        let (g, _) = virtualGraph()
        let onCaller = Recorder<Bool>()
        let caller = Locked<pthread_t?>(nil)
        let log = EventLog(g)
        g.observe { _ in
            if let c = caller.get { onCaller.add(pthread_equal(c, pthread_self()) != 0) }
        }
        let t = GraphTask<Int, TestError>.succeed(1, graph: g)
        let done = DispatchSemaphore(value: 0)
        let counts = Locked<[Int]>([])
        Thread {
            caller.withLock { $0 = pthread_self() }
            t.execute()
            let n = log.events.count // already there when execute returns
            counts.withLock { $0.append(n) }
            done.signal()
        }.start()
        done.wait()
        #expect(counts.get == [3])
        #expect(onCaller.all == [true, true])
        #expect(log.states(t.id) == [.executing, .completed])
    }

    @Test func cancelledObservationSeesNothingMore() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        _ = GraphTask<Int, TestError>.succeed(1, graph: g)
        log.observation.cancel()
        log.observation.cancel()
        _ = GraphTask<Int, TestError>.succeed(1, graph: g)
        #expect(log.events.count == 1)
    }

    @Test func flushObserversReturnsWhenEveryEventSoFarWasDelivered() {
        let g = Graph()
        let seen = Locked<[UInt64]>([])
        let observation = g.observe { e in seen.withLock { $0.append(e.sequence) } }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for i in 0..<200 { GraphTask<Int, TestError>.succeed(i, graph: g).execute() }
        }
        g.flushObservers()
        let sequence = g.snapshot().sequence
        #expect(seen.get == Array(1...sequence)) // every event once, gapless, in order
        observation.cancel()
    }

    @Test func snapshotAndObserveIsAJoinPoint() {
        let (g, clock) = virtualGraph()
        let a = timed(1, after: 1, graph: g)
        let b = timed(2, after: 2, graph: g)
        GraphTask.sequential([a, b]).execute()
        clock.advance(by: 1)
        let items = Locked<[GraphEvent]>([])
        let (snap, observation) = g.snapshotAndObserve { e in items.withLock { $0.append(e) } }
        #expect(snap.sequence > 0)
        #expect(snap[a.id]?.state == .completed)
        clock.runUntilIdle()
        _ = GraphTask<Int, TestError>.fail(TestError(), graph: g).execute()
        let events = items.get
        #expect(events.first?.sequence == snap.sequence + 1)
        var replica = GraphReplica(snap)
        for e in events { replica.apply(e) }
        #expect(replica.snapshot == g.snapshot())
        observation.cancel()
    }

    @Test func eventsStreamYieldsLiveEvents() async {
        let (g, _) = virtualGraph()
        let stream = g.events
        let t = GraphTask<Int, TestError>.succeed(1, graph: g).execute()
        var got: [GraphChange] = []
        for await e in stream {
            got.append(e.change)
            if got.count == 3 { break }
        }
        #expect(
            got == [
                .added(id: t.id, kind: "task", name: "task", weight: 1, parent: nil, index: nil),
                .stateChanged(id: t.id, state: .executing, failed: false, message: nil),
                .stateChanged(id: t.id, state: .completed, failed: false, message: nil),
            ])
    }

    @Test func nodeIDsAreNonNegativeInCreationOrder() {
        let (g, _) = virtualGraph()
        let tasks = (0..<4).map { GraphTask<Int, TestError>.succeed($0, graph: g) }
        let seq = GraphTask.sequential(tasks)
        #expect(tasks.map(\.id.rawValue) == [0, 1, 2, 3])
        #expect(seq.id.rawValue == 4)
        #expect(g.snapshot().nodes.keys.allSatisfy { $0.rawValue >= 0 })
        #expect(g.snapshot().roots == [seq.id])
        #expect(NodeID(rawValue: 3) == tasks[3].id)
    }

    @Test func snapshotsAndNodesAreEquatable() {
        let (g, _) = virtualGraph()
        let t = GraphTask<Int, TestError>.succeed(1, graph: g)
        let s1 = g.snapshot()
        let s2 = g.snapshot()
        #expect(s1 == s2)
        #expect(s1[t.id] == s2[t.id])
        t.execute()
        let s3 = g.snapshot()
        #expect(s3 != s1)
        #expect(s3[t.id] != s1[t.id])
        let node = GraphNode(
            id: NodeID(0), kind: "task", parent: nil, children: [], name: "task", weight: 1,
            state: .completed, failed: false, progress: TaskProgress(1), message: nil)
        #expect(s3[t.id] == node)
        #expect(GraphSnapshot(nodes: [NodeID(0): node], roots: [NodeID(0)], sequence: s3.sequence) == s3)
    }

    @Test func everyNodeTypeHasItsKind() {
        let (g, _) = virtualGraph()
        func leaf() -> GraphTask<Int, TestError> { .succeed(1, graph: g) }
        let kinds: [(AnyGraphTask, String)] = [
            (leaf(), "task"),
            (GraphTask<Int, TestError>.pending(graph: g).task, "pending"),
            (GraphTask<Void, Never>.delay(seconds: 1, graph: g), "delay"),
            (GraphTask.sequential([leaf()]), "sequential"),
            (GraphTask.concurrent([leaf()]), "concurrent"),
            (GraphTask.allSettled([leaf()]), "allSettled"),
            (leaf().then(leaf()), "then"),
            (leaf().recover(leaf()), "recover"),
            (leaf().chain { _ in GraphTask<Int, TestError>.succeed(1, graph: g) }, "chain"),
            (leaf().mapResult { $0 }, "map"),
            (leaf().mapError { $0 }, "map"),
            (leaf().mapOutcome { $0 }, "map"),
            (leaf().mapProgress { $0 }, "map"),
            (leaf().mapProgress(byScalingFractionIntoRange: (0, 1)), "map"),
            (leaf().timeout(seconds: 1), "timeout"),
            (leaf().retry(2), "retry"),
            (GraphTask.race([leaf()]), "race"),
            (leaf().and(leaf()), "and"),
            (leaf().validate { _ in true }, "validate"),
            // Named after its receiver by default; named here so that the check below holds.
            (leaf().after([leaf()], name: "after"), "after"),
        ]
        let snap = g.snapshot()
        for (task, kind) in kinds {
            #expect(snap[task.id]?.kind == kind)
            #expect(task.kind == kind)
            #expect(task.name == kind) // the default name describes the kind
        }
        // A later consumer of an adopted task gets a `ref` node named after it.
        let shared = leaf()
        _ = shared.mapResult { $0 }
        let other = shared.mapResult { $0 }
        let after = g.snapshot()
        let ref = after[after[other.id]!.children[0]]!
        #expect(ref.kind == "ref")
        #expect(ref.name == shared.name)
        // `command`: TaskGraphProcess's commands (TaskGraphProcessTests checks it); scopes
        // (`withGraphTask`), spans (`GraphTracer`) and services (`GraphService`) are made
        // elsewhere (ScopeTests, GraphServiceTests).
        let elsewhere = [NodeKind.command, NodeKind.scope, NodeKind.span, NodeKind.service]
        #expect(Set(kinds.map(\.1) + [ref.kind] + elsewhere) == Set(NodeKind.all))
    }

    @Test func childrenFollowSubtaskOrder() {
        let (g, _) = virtualGraph()
        let tasks = (0..<5).map { GraphTask<Int, TestError>.succeed($0, name: "t\($0)", graph: g) }
        // Created in a different order than the subtask order.
        let order = [3, 0, 4, 1, 2].map { tasks[$0] }
        let seq = GraphTask.sequential(order)
        let snap = g.snapshot()
        #expect(snap[seq.id]?.children == order.map(\.id))
        #expect(order.allSatisfy { snap[$0.id]?.parent == seq.id })
        #expect(snap.roots == [seq.id])
        let x = GraphTask<Int, TestError>.succeed(1, graph: g)
        let y = GraphTask<Int, TestError>.succeed(2, graph: g)
        let t = y.then(x)
        #expect(g.snapshot()[t.id]?.children == [y.id, x.id])
    }

    @Test func namesAndMessagesAreCutTo4KiB() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let long = String(repeating: "a", count: 5000)
        let wide = String(repeating: "é", count: 3000) // 2 bytes each
        let emoji = String(repeating: "😀", count: 1500) // 4 bytes each
        let short = String(repeating: "b", count: 4096)
        let t1 = GraphTask<Int, TestError>.succeed(1, name: long, graph: g)
        let t2 = GraphTask<Int, TestError>.succeed(1, name: wide, graph: g)
        let t3 = GraphTask<Int, TestError>.succeed(1, name: emoji, graph: g)
        let t4 = GraphTask<Int, TestError>.succeed(1, name: short, graph: g)
        struct Big: Error, CustomStringConvertible { var description: String { String(repeating: "m", count: 9000) } }
        let f = GraphTask<Int, Big>.fail(Big(), graph: g).execute()
        let snap = g.snapshot()
        #expect(snap[t1.id]?.name == String(repeating: "a", count: 4096))
        #expect(snap[t2.id]?.name == String(repeating: "é", count: 2048))
        #expect(snap[t3.id]?.name == String(repeating: "😀", count: 1024))
        #expect(snap[t4.id]?.name == short)
        #expect(snap[f.id]?.message == String(repeating: "m", count: 4096))
        #expect(t1.name.utf8.count == 4096)
        let names = log.changes.compactMap {
            if case .added(_, _, let n, _, _, _) = $0 { return n.utf8.count } else { return nil }
        }
        #expect(names.allSatisfy { $0 <= 4096 })
        let messages = log.changes.compactMap {
            if case .stateChanged(_, _, _, let m?) = $0 { return m } else { return nil }
        }
        #expect(messages == [String(repeating: "m", count: 4096)])
        let custom = forever(graph: g).execute()
        g.cancel(custom.id, source: long)
        #expect(log.cancelSources(custom.id).first?.utf8.count == 4096)
    }

    @Test func retentionDropsFinishedRootsWithADroppedEvent() {
        let clock = VirtualClock()
        let g = Graph(clock: clock, retention: Retention(maxFinishedRoots: 2))
        let log = EventLog(g)
        var roots: [GraphTask<[Int], TestError>] = []
        for i in 0..<4 {
            let leaves = [
                GraphTask<Int, TestError>.succeed(i, graph: g), GraphTask<Int, TestError>.succeed(i, graph: g),
            ]
            roots.append(GraphTask.sequential(leaves))
        }
        let running = forever(graph: g).execute() // unfinished roots are never dropped
        for r in roots { r.execute() }
        let dropped = log.changes.compactMap { if case .dropped(let ids) = $0 { return Set(ids) } else { return nil } }
        let subtree = { (i: Int) in
            Set([roots[i].id, NodeID(roots[i].id.rawValue - 2), NodeID(roots[i].id.rawValue - 1)])
        }
        #expect(dropped == [subtree(0), subtree(1)])
        let snap = g.snapshot()
        #expect(snap.nodes.count == 7)
        #expect(snap.roots == [roots[2].id, roots[3].id, running.id])
        #expect(snap[roots[0].id] == nil)
        #expect(log.replica.snapshot == snap)
        // Tasks of dropped nodes still work.
        #expect(val(roots[0]) == [0, 0])
        #expect(roots[0].state == .completed)
    }

    @Test
    func retentionThenLateAdoptionKeepsTheSnapshotConsistent() {
        let clock = VirtualClock()
        let g = Graph(clock: clock, retention: Retention(maxFinishedRoots: 0))
        let log = EventLog(g)
        let early = GraphTask<Int, TestError>.succeed(2, graph: g)
        early.cancel() // a finished root: dropped at once
        #expect(g.snapshot()[early.id] == nil)
        let seq = GraphTask.sequential([GraphTask<Int, TestError>.succeed(1, graph: g), early])
        let snap = g.snapshot()
        let dangling = snap.nodes.values.flatMap(\.children).filter { snap[$0] == nil }
        #expect(dangling.isEmpty)
        #expect(log.replica.snapshot == snap)
        seq.execute()
        #expect(seq.state == .cancelled)
        #expect(log.replica.snapshot == g.snapshot())
    }

    @Test func retentionByAge() {
        let clock = VirtualClock()
        let g = Graph(clock: clock, retention: Retention(maxFinishedRoots: 100, maxAge: 10))
        let a = GraphTask<Int, TestError>.succeed(1, graph: g).execute()
        clock.advance(by: 11)
        let b = GraphTask<Int, TestError>.succeed(1, graph: g).execute()
        let snap = g.snapshot()
        #expect(snap[a.id] == nil)
        #expect(snap[b.id] != nil)
    }

    @Test func explicitGraphKeepsEverything() {
        let (g, _) = virtualGraph()
        #expect(g.retention == nil)
        for i in 0..<1500 { GraphTask<Int, TestError>.succeed(i, graph: g).execute() }
        #expect(g.snapshot().nodes.count == 1500)
        #expect(Graph().retention == nil)
        #expect(Graph.shared.retention != nil)
    }
}

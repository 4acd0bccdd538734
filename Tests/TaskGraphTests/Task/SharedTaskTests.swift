import Dispatch
import Testing

@testable import TaskGraph

/// One task, several consumers (the SharingATask article): the first consumer
/// adopts it, later ones get a `ref` node that follows it; downward cancel is reference counted.
@Suite struct SharedTaskTests {
    /// The one child of `owner` in the snapshot at `index`.
    static func child(_ g: Graph, _ owner: AnyGraphTask, _ index: Int) -> GraphNode {
        let snap = g.snapshot()
        return snap[snap[owner.id]!.children[index]]!
    }

    @Test func twoMapResultsBothGetTheValue() {
        let (g, clock) = virtualGraph()
        let p = timed(5, after: 1, name: "p", graph: g)
        let a = p.mapResult { $0 + 1 }
        let b = p.mapResult { $0 * 10 }
        let c = GraphTask.concurrent([a, b], graph: g).execute()
        clock.runUntilIdle()
        #expect(c.outcome.flatMap { try? $0.get() } == [6, 50])
        let ref = Self.child(g, b, 0)
        #expect(ref.kind == NodeKind.ref)
        #expect(ref.name == "p")
        #expect(ref.refOf == p.id)
        #expect(ref.state == .completed)
        #expect(g.snapshot()[p.id]?.parent == a.id)
        // One node for p: the ref is a separate node, p ran once.
        #expect(g.snapshot().nodes.values.filter { $0.kind == NodeKind.ref }.count == 1)
    }

    @Test func twoThensOnOneTaskBothRunWithItsValueAndItRunsOnce() {
        let (g, clock) = virtualGraph()
        let runs = Counter()
        let user = GraphTask<String, TestError>(name: "fetch user", graph: g) { task, succeed, _, _ in
            runs.bump()
            let t = g.clock.schedule(after: 1) { succeed("ann") }
            task.onCancel { t.cancel() }
        }
        let got = Recorder<String>()
        let a = user.then { name in GraphTask<String, TestError>.succeed("a:" + name, graph: g) }
        let b = user.then { name in GraphTask<String, TestError>.succeed("b:" + name, graph: g) }
        a.success { got.add($0) }.execute()
        b.success { got.add($0) }.execute()
        clock.runUntilIdle()
        #expect(got.all == ["a:ann", "b:ann"])
        #expect(runs.value == 1)
        #expect(Self.child(g, a, 0).id == user.id)
        #expect(Self.child(g, b, 0).kind == NodeKind.ref)
        #expect(Self.child(g, b, 0).refOf == user.id)
    }

    @Test func theSameTaskInTwoConcurrentsExactEvents() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let shared = timed(1, after: 1, name: "shared", graph: g) // #0
        let x = timed(2, after: 2, name: "x", graph: g) // #1
        let y = timed(3, after: 1, name: "y", graph: g) // #2
        let c1 = GraphTask.concurrent([shared, x], name: "c1", graph: g) // #3
        let c2 = GraphTask.concurrent([shared, y], name: "c2", graph: g) // #4, ref #5
        #expect(
            log.changes == [
                .added(id: NodeID(0), kind: "task", name: "shared", weight: 1, parent: nil, index: nil),
                .added(id: NodeID(1), kind: "task", name: "x", weight: 1, parent: nil, index: nil),
                .added(id: NodeID(2), kind: "task", name: "y", weight: 1, parent: nil, index: nil),
                .added(id: NodeID(3), kind: "concurrent", name: "c1", weight: 1, parent: nil, index: nil),
                .parentSet(id: NodeID(0), parent: NodeID(3), index: 0),
                .parentSet(id: NodeID(1), parent: NodeID(3), index: 1),
                .added(id: NodeID(4), kind: "concurrent", name: "c2", weight: 1, parent: nil, index: nil),
                .parentSet(id: NodeID(2), parent: NodeID(4), index: 1),
                .added(id: NodeID(5), kind: "ref", name: "shared", weight: 1, parent: NodeID(4), index: 0),
                .ref(id: NodeID(5), of: NodeID(0)),
            ])
        c2.execute() // the adopter c1 is not executing: the ref starts the shared task
        #expect(shared.state == .executing)
        c1.execute()
        clock.runUntilIdle()
        #expect(c1.outcome.flatMap { try? $0.get() } == [1, 2])
        #expect(c2.outcome.flatMap { try? $0.get() } == [1, 3])
        #expect(g.snapshot()[NodeID(4)]?.children == [NodeID(5), NodeID(2)])
        #expect(log.states(NodeID(0)) == [.executing, .completed])
        #expect(log.states(NodeID(5)) == [.executing, .completed])
        // The replica knows what the ref stands for.
        #expect(log.replica.snapshot.nodes == g.snapshot().nodes)
        #expect(log.replica.snapshot[NodeID(5)]?.refOf == NodeID(0))
    }

    @Test func sameEventsOnEveryRun() {
        func run() -> [GraphEvent] {
            let (g, clock) = virtualGraph()
            let log = EventLog(g)
            let s = stepped([0.5], value: 1, name: "s", graph: g)
            let a = s.then { v in timed(v, after: 1, graph: g) }
            let b = s.mapResult { $0 + 1 }
            GraphTask.concurrent([a, b], graph: g).execute()
            clock.runUntilIdle()
            return log.events
        }
        let first = run()
        #expect(first == run())
        #expect(first.contains { if case .ref = $0.change { true } else { false } })
    }

    @Test func aRefWaitsForAnExecutingAdopterToStartTheSharedTaskInItsOrder() {
        let (g, clock) = virtualGraph()
        let first = timed(0, after: 5, name: "first", graph: g)
        let shared = timed(1, after: 1, name: "shared", graph: g)
        let seq = GraphTask.sequential([first, shared], graph: g).execute()
        let other = shared.mapResult { $0 + 1 }.execute()
        #expect(shared.state == .notExecuted) // not started out of the sequential's order
        clock.advance(by: 5)
        #expect(shared.state == .executing)
        clock.runUntilIdle()
        #expect(seq.outcome.flatMap { try? $0.get() } == [0, 1])
        #expect(other.outcome.flatMap { try? $0.get() } == 2)
    }

    @Test func aRefStartsTheSharedTaskWhenItsAdopterSettlesWithoutIt() {
        let (g, clock) = virtualGraph()
        let first = timed(0, after: 1, name: "first", graph: g)
        let fallback = timed(7, after: 1, name: "fallback", graph: g)
        let r = first.recover(fallback).execute() // fallback adopted, never needed by r
        let m = fallback.mapResult { $0 * 2 }.execute()
        #expect(fallback.state == .notExecuted)
        clock.runUntilIdle()
        #expect(r.outcome.flatMap { try? $0.get() } == 0)
        #expect(m.outcome.flatMap { try? $0.get() } == 14)
    }

    @Test func aRefOfASettledTaskFollowsAtOnce() {
        let (g, _) = virtualGraph()
        let s = GraphTask<Int, TestError>.succeed(4, name: "s", graph: g)
        let a = s.mapResult { $0 }.execute()
        #expect(a.outcome.flatMap { try? $0.get() } == 4)
        let b = s.mapResult { $0 + 1 }.execute()
        #expect(b.outcome.flatMap { try? $0.get() } == 5)
        #expect(Self.child(g, b, 0).state == .completed)
    }

    @Test func progressIsFollowed() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let s = stepped([0.25, 0.5], value: 1, name: "s", graph: g)
        let a = s.mapResult { $0 }
        let b = s.mapResult { $0 }
        let ref = Self.child(g, b, 0).id
        a.execute()
        b.execute()
        clock.advance(by: 1)
        #expect(g.snapshot()[ref]?.progress.fraction == 0.25)
        #expect(b.currentProgress.fraction == 0.25)
        clock.runUntilIdle()
        #expect(log.fractions(ref) == [0.25, 0.5, 1])
    }

    @Test func cancellingOneConsumerLeavesTheSharedTaskRunning() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let shared = timed(1, after: 5, name: "shared", graph: g)
        let a = shared.mapResult { $0 }.execute()
        let b = shared.mapResult { $0 + 1 }.execute()
        let ref = Self.child(g, b, 0).id
        a.cancel()
        #expect(shared.state == .executing)
        #expect(log.cancelSources(shared.id).isEmpty)
        clock.runUntilIdle()
        #expect(b.outcome.flatMap { try? $0.get() } == 2)
        #expect(a.state == .cancelled)
        #expect(g.snapshot()[ref]?.state == .completed)
    }

    @Test func cancellingTheLastWaitingConsumerCancelsTheSharedTask() {
        for refFirst in [false, true] {
            let (g, clock) = virtualGraph()
            let log = EventLog(g)
            let shared = timed(1, after: 5, name: "shared", graph: g)
            let a = shared.mapResult { $0 }.execute()
            let b = shared.mapResult { $0 + 1 }.execute()
            let ref = Self.child(g, b, 0).id
            if refFirst { b.cancel() } else { a.cancel() }
            #expect(shared.state == .executing)
            if refFirst { a.cancel() } else { b.cancel() }
            #expect(shared.state == .cancelled)
            #expect(log.cancelSources(shared.id) == ["parent"])
            #expect(log.cancelSources(ref) == ["parent"])
            clock.runUntilIdle()
            #expect(g.snapshot()[ref]?.state == .cancelled)
        }
    }

    @Test func cancellingTheSharedTaskReachesEveryConsumer() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let shared = timed(1, after: 5, name: "shared", graph: g)
        let a = shared.mapResult { $0 }.execute()
        let b = shared.mapResult { $0 }.execute()
        let c = GraphTask.sequential([shared, timed(2, after: 1, graph: g)], graph: g).execute()
        let refB = Self.child(g, b, 0).id
        shared.cancel()
        clock.runUntilIdle()
        #expect(a.state == .cancelled)
        #expect(b.state == .cancelled)
        #expect(c.state == .cancelled)
        #expect(log.cancelSources(shared.id) == ["api"])
        #expect(log.cancelSources(a.id) == ["child"])
        #expect(log.cancelSources(refB) == ["child"])
        #expect(log.cancelSources(b.id) == ["child"])
    }

    @Test func aTimeoutOfOneConsumerDoesNotCancelTheSharedTaskOthersWaitFor() {
        let (g, clock) = virtualGraph()
        let shared = timed(1, after: 5, name: "shared", graph: g)
        let t = shared.timeout(seconds: 1).execute()
        let m = shared.mapResult { $0 + 1 }.execute()
        clock.runUntilIdle()
        #expect(t.outcome.map { if case .failure = $0 { true } else { false } } == true)
        #expect(m.outcome.flatMap { try? $0.get() } == 2)
    }

    @Test func aThenClosureReturningATaskAnotherCompositeAdoptedFollowsIt() {
        let (g, clock) = virtualGraph()
        let shared = timed(3, after: 1, name: "shared", graph: g)
        let a = shared.mapResult { $0 }.execute()
        let b = timed(0, after: 1, graph: g).then { _ in shared }.execute()
        clock.runUntilIdle()
        #expect(a.outcome.flatMap { try? $0.get() } == 3)
        #expect(b.outcome.flatMap { try? $0.get() } == 3)
        #expect(Self.child(g, b, 1).kind == NodeKind.ref)
    }

    @Test func aFailureIsFollowed() {
        let (g, clock) = virtualGraph()
        let shared = timed(1, after: 1, name: "shared", graph: g, fail: true)
        let a = shared.mapResult { $0 }.execute()
        let b = shared.recover { _ in GraphTask<Int, TestError>.succeed(9, graph: g) }.execute()
        let c = shared.mapResult { $0 }.execute()
        clock.runUntilIdle()
        #expect(a.outcome.map { if case .failure = $0 { true } else { false } } == true)
        #expect(b.outcome.flatMap { try? $0.get() } == 9)
        #expect(c.outcome.map { if case .failure = $0 { true } else { false } } == true)
        #expect(Self.child(g, c, 0).failed)
    }
}

extension SharedTaskTests {
    @Test func aRetriedConsumerCopiesItsRefAsARefOfTheSameTask() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let shared = timed(2, after: 1, name: "shared", graph: g)
        let a = shared.mapResult { $0 }.execute()
        let tries = Counter()
        let b = GraphTask.sequential(
            [
                shared,
                GraphTask<Int, TestError>(graph: g) { _, fail in
                    tries.bump()
                    fail(TestError())
                },
            ], graph: g
        ).retry(2).execute()
        clock.runUntilIdle()
        #expect(a.outcome.flatMap { try? $0.get() } == 2)
        #expect(tries.value == 2)
        let refs = log.changes.compactMap { if case .ref(let id, let of) = $0 { return (id, of) } else { return nil } }
        #expect(refs.count == 2)
        #expect(refs.allSatisfy { $0.1 == shared.id })
        #expect(b.state == .completed)
        #expect(log.states(shared.id) == [.executing, .completed])
    }

    @Test func cancellingTheSharedTaskCancelsConsumersNotExecutedYet() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let shared = timed(1, after: 5, name: "shared", graph: g)
        let a = shared.mapResult { $0 }
        let b = shared.mapResult { $0 }
        let ref = Self.child(g, b, 0).id
        shared.cancel()
        #expect(a.state == .cancelled)
        #expect(b.state == .cancelled)
        #expect(log.cancelSources(ref) == ["child"])
        #expect(log.cancelSources(b.id) == ["child"])
    }

    @Test func theLastConsumerLettingGoDoesNotCancelConsumersNotExecutedYet() {
        let (g, _) = virtualGraph()
        let shared = timed(1, after: 5, name: "shared", graph: g)
        let a = shared.mapResult { $0 }.execute()
        let b = shared.mapResult { $0 }
        a.cancel()
        #expect(shared.state == .cancelled)
        #expect(b.state == .notExecuted)
        b.execute() // it reaches the cancelled task then, and reacts
        #expect(b.state == .cancelled)
    }

    @Test func consumersOnSeveralThreadsGetOneAdopterAndRefsForTheRest() {
        for _ in 0..<50 {
            let g = Graph()
            let (shared, resolver) = GraphTask<Int, TestError>.pending(name: "shared", graph: g)
            let consumers = Locked<[GraphTask<Int, TestError>]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { i in
                let c = shared.mapResult { $0 + i }.execute()
                consumers.withLock { $0.append(c) }
            }
            resolver.succeed(10)
            let all = consumers.get
            #expect(Set(all.compactMap { try? $0.outcome?.get() }) == [10, 11, 12, 13])
            let snap = g.snapshot()
            let kinds = all.map { snap[snap[$0.id]!.children[0]]!.kind }
            #expect(kinds.filter { $0 == NodeKind.ref }.count == 3)
            #expect(snap.nodes.values.filter { $0.kind == NodeKind.ref }.allSatisfy { $0.refOf == shared.id })
        }
    }

    @Test func releasedRefsDoNotPileUp() {
        let (g, _) = virtualGraph()
        let shared = timed(1, after: 1, graph: g)
        let adopter = shared.mapResult { $0 }
        for _ in 0..<1000 { _ = shared.mapResult { $0 } } // each consumer dropped at once
        let count = g.lock.withLock { shared._sharing?.refs.count ?? -1 }
        #expect(count > 0 && count <= 32)
        withExtendedLifetime(adopter) {}
    }
}

import Foundation
import Testing

@testable import TaskGraph

/// A scope's derived progress ("N/M") while nobody observes its graph: recorded only when
/// somebody looks (`UnrecordedProgress`), and then exactly what it would have been.
@Suite struct ScopeUnobservedProgressTests {
    @Test func readingProgressOrTakingASnapshotGivesTheCurrentNOfM() async {
        let (g, _) = virtualGraph()
        let release = Locked(false)
        await withGraphTask("parent", graph: g) { s in
            async let b: Void = withGraphTask("b") { _ in
                while !release.get { await Task.yield() }
            }
            _ = await eventuallyAsync { g.snapshot()[s.id]?.children.count == 1 }
            await withGraphTask("a") { _ in }
            // b made, a made and done: nothing recorded meanwhile, all of it read now.
            #expect(!g.observed)
            #expect(g.unrecordedProgress.count == 1)
            #expect(s.node.currentProgress == TaskProgress(0.5, info: "1/2"))
            #expect(g.snapshot()[s.id]?.progress == TaskProgress(0.5, info: "1/2"))
            await withGraphTask("c") { _ in }
            #expect(g.snapshot()[s.id]?.progress == TaskProgress(2.0 / 3.0, info: "2/3"))
            #expect(s.node.currentProgress == TaskProgress(2.0 / 3.0, info: "2/3"))
            release.withLock { $0 = true }
            await b
        }
        #expect(g.unrecordedProgress.count == 0)
    }

    @Test func anObserverThatAttachesLaterStartsFromTheCurrentNOfMAndSeesEveryChange() async {
        let (g, _) = virtualGraph()
        let events = Locked<[GraphEvent]>([])
        let start = Locked<GraphSnapshot?>(nil)
        let id = await withGraphTask("parent", graph: g) { s in
            await withGraphTask("a") { _ in }
            await withGraphTask("b") { _ in }
            let (snapshot, observation) = g.snapshotAndObserve { e in events.withLock { $0.append(e) } }
            start.withLock { $0 = snapshot }
            await withGraphTask("c") { _ in }
            observation.cancel()
            return s.id
        }
        let snapshot = start.get!
        #expect(snapshot[id]?.progress == TaskProgress(1, info: "2/2"))
        let seen = events.get
        // The events go on from the snapshot's sequence: the unobserved changes were counted.
        #expect(seen.first?.sequence == snapshot.sequence + 1)
        let progress = seen.compactMap { e -> TaskProgress? in
            if case .progress(let i, let p) = e.change, i == id { return p } else { return nil }
        }
        // c made: two of three done (never more than the work done); then three of three.
        #expect(progress == [TaskProgress(2.0 / 3.0, info: "2/3"), TaskProgress(1, info: "3/3")])
        #expect(g.snapshot()[id]?.progress == TaskProgress(1, info: "3/3"))
    }

    @Test func aScopeThatSettledUnobservedKeepsItsLastNOfM() async {
        let (g, _) = virtualGraph()
        let done = await withGraphTask("done", graph: g) { s in
            await withGraphTask("a") { _ in }
            await withGraphTask("b") { _ in }
            return s.id
        }
        let failed = Locked<NodeID?>(nil)
        await #expect(throws: TestError.self) {
            try await withGraphTask("failed", graph: g) { s in
                failed.withLock { $0 = s.id }
                await withGraphTask("a") { _ in }
                throw TestError()
            }
        }
        let cancelled = await withGraphTask("cancelled", graph: g) { s in
            async let b: Void = withGraphTask("b") { _ in
                while !Task.isCancelled { await Task.yield() }
            }
            _ = await eventuallyAsync { g.snapshot()[s.id]?.children.count == 1 }
            await withGraphTask("a") { _ in }
            await withGraphTask("c") { _ in }
            g.cancel(s.id)
            await b
            return s.id
        }
        #expect(g.unrecordedProgress.count == 0)
        let snap = g.snapshot()
        #expect(snap[done]?.progress == TaskProgress(1, info: "2/2"))
        #expect(snap[failed.get!]?.state == .completed)
        #expect(snap[failed.get!]?.progress == TaskProgress(1, info: "1/1"))
        #expect(snap[cancelled]?.state == .cancelled)
        #expect(snap[cancelled]?.progress == TaskProgress(2.0 / 3.0, info: "2/3"))
    }

    @Test func ownProgressAfterUnrecordedNOfMReplacesIt() async {
        let (g, _) = virtualGraph()
        let id = await withGraphTask("parent", graph: g) { s in
            await withGraphTask("a") { _ in }
            s.progress(0.25)
            #expect(g.snapshot()[s.id]?.progress == TaskProgress(0.25))
            await withGraphTask("b") { _ in }
            #expect(g.snapshot()[s.id]?.progress == TaskProgress(0.25))
            return s.id
        }
        #expect(g.snapshot()[id]?.progress == TaskProgress(1))
    }
}

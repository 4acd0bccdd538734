import Dispatch
import Foundation
import Testing

@testable import TaskGraph

/// The engine's guard rails (debug builds): a lock knows the thread that holds it, so every
/// `…Locked` function can assert its lock; the engine's structures check their invariants
/// (`verifyInvariants()` returns what is wrong, nil when nothing is). Release builds record no
/// owner and check nothing.
@Suite struct GuardRailTests {
    @Test(.enabled(if: guardRailsEnabled))
    func aLockKnowsItIsHeldByThisThreadOnlyWhileHeld() {
        let lock = Lock()
        #expect(!lock.isHeldByCurrentThread)
        lock.lock()
        #expect(lock.isHeldByCurrentThread)
        let seenElsewhere = Locked(true)
        let done = DispatchSemaphore(value: 0)
        Thread {
            seenElsewhere.withLock { $0 = lock.isHeldByCurrentThread }
            done.signal()
        }.start()
        done.wait()
        #expect(seenElsewhere.get == false, "another thread does not hold it")
        lock.unlock()
        #expect(!lock.isHeldByCurrentThread)
        lock.withLock { #expect(lock.isHeldByCurrentThread) }
        #expect(!lock.isHeldByCurrentThread)
    }

    @Test(.enabled(if: guardRailsEnabled))
    func aPaddedStripeLockRecordsItsOwnerToo() {
        let graph = Graph()
        let stripe = graph.stripes[3]
        #expect(!stripe.lock.isHeldByCurrentThread)
        graph.withAllStripes {
            #expect(graph.stripes.allSatisfy { $0.lock.isHeldByCurrentThread })
        }
        #expect(!graph.stripes.contains { $0.lock.isHeldByCurrentThread })
    }

    @Test(.enabled(if: !guardRailsEnabled))
    func releaseBuildsRecordNoOwner() {
        let lock = Lock()
        lock.withLock { #expect(!lock.isHeldByCurrentThread) }
    }

    @Test func theStripesOfAGraphThatRanTasksKeepTheirInvariants() {
        let graph = Graph(retention: Retention(maxFinishedRoots: 10))
        for i in 0..<3_000 {
            let t = GraphTask<Int, TestError>(name: "t\(i)", graph: graph) { succeed, _ in succeed(i) }
            let u = GraphTask<Int, TestError>(name: "u", graph: graph) { succeed, _ in succeed(1) }
            _ = t.and(u).execute()
        }
        let failed = GraphTask<Int, TestError>(name: "f", graph: graph) { _, fail in fail(TestError()) }.execute()
        #expect(failed.state == .completed)
        graph.withAllStripes {
            for s in graph.stripes { #expect(s.verifyInvariants() == nil) }
        }
    }

    @Test func aNodeTableKeepsItsInvariantsAcrossAppendsDropsAndFreedChunks() {
        var table = NodeTable(pool: NodeChunkPool(capacity: 4))
        defer { table.deallocate() }
        for i in 0..<(2 * NodeTable.chunkSize + 3) {
            _ = table.append(NodeRecord(id: i, kindIndex: 0, weight: 1, name: "n\(i)"))
        }
        table.messages[5] = "failed"
        table.refs[7] = 1
        table.setStart(9, 1.5)
        #expect(table.verifyInvariants() == nil)
        for i in 0..<NodeTable.chunkSize { table.drop(i) } // chunk 0 is freed
        table.drop(NodeTable.chunkSize + 1)
        #expect(table.verifyInvariants() == nil)
        table.messages[3] = "stale" // a message for a dropped slot
        #expect(table.verifyInvariants()?.contains("slot 3") == true)
    }

    @Test func aChildListReportsAShapeAppendAndInsertNeverMake() {
        var list = ChildList()
        for i in 0..<10 { list.append(NodeID(i)) }
        list.insert(NodeID(99), at: 0)
        list.append(NodeID(Int(Int32.max) + 1))
        #expect(list.verifyInvariants() == nil)
        #expect(ChildList(head: -1, tail: .one(3)).verifyInvariants() != nil)
        #expect(ChildList(head: 1, tail: .many([])).verifyInvariants() != nil)
        #expect(ChildList(head: -2).verifyInvariants() != nil)
        #expect(ChildList(head: 1, tail: .many([NodeID(-4)])).verifyInvariants() != nil)
    }

    @Test func aSpoolKeepsItsChunkAccountingThroughFillsDrainsAndSpares() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 8, overflow: .drop, prepared: 2, keptSpares: 2)
        #expect(spool.verifyInvariants() == nil)
        var taken = 0
        for round in 0..<20 {
            for i in 0..<(round * 7 % 60) { _ = spool.append(i) }
            #expect(spool.verifyInvariants() == nil)
            taken += spool.drain(limit: round % 3 == 0 ? 5 : .max) { _ in }
            #expect(spool.verifyInvariants() == nil)
        }
        #expect(taken > 0)
    }

    @Test func aScopesLiveChildrenKeepTheirInvariantsThroughGrowthAndShrinking() {
        let task = GraphTask<Int, Never>.succeed(1, graph: Graph())
        var live = LiveChildren()
        for i in 0..<5_000 { live.insert(i * 3, LiveChildren.Entry(task: task, weight: 1, counted: 0)) }
        #expect(live.verifyInvariants() == nil)
        for i in stride(from: 0, to: 5_000, by: 2) { _ = live.remove(i * 3) }
        #expect(live.verifyInvariants() == nil)
        for i in 0..<5_000 { _ = live.remove(i * 3) } // shrinks as it empties
        #expect(live.verifyInvariants() == nil)
        #expect(live.count == 0)
    }

    @Test func theRecorderModelsChunksKeepTheirInvariantsAsNodesComeAndGo() {
        var m = RecorderModel()
        for id in 0..<9_000 {
            m.apply(
                .added(
                    id: NodeID(id), kind: NodeKind.task, name: id % 3 == 0 ? "" : "n\(id)", weight: 1, parent: nil,
                    index: nil))
        }
        #expect(m.verifyInvariants() == nil)
        m.apply(.dropped(ids: (0..<5_000).map { NodeID($0) })) // chunk 0 is freed
        #expect(m.verifyInvariants() == nil)
        #expect(m.liveCount == 4_000)
    }
}

import Foundation
import Testing

@testable import TaskGraph

/// Node-record chunks a graph lets go of are kept (up to a bound) for the next graph, so a
/// program that runs a graph per job reuses memory already paged in.
@Suite struct NodeChunkPoolTests {
    private func record(_ id: Int) -> NodeRecord {
        NodeRecord(id: id, kindIndex: 0, weight: 1, name: "n\(id)")
    }

    @Test func aTableThatEndsGivesItsChunksBackAndTheNextTableTakesTheLastGivenFirst() {
        let pool = NodeChunkPool(capacity: 8)
        var first = NodeTable(pool: pool)
        for i in 0..<(2 * NodeTable.chunkSize) { _ = first.append(record(i)) }
        #expect(pool.held == 0)
        let secondChunk = first.pointer(NodeTable.chunkSize)
        first.deallocate()
        #expect(pool.held == 2)

        var next = NodeTable(pool: pool)
        _ = next.append(record(0))
        #expect(pool.held == 1)
        #expect(next.pointer(0) == secondChunk) // the warmest one
        #expect(next[0].name == "n0")
        next.deallocate()
        #expect(pool.held == 2)
    }

    @Test func aChunkWhoseRecordsAreAllDroppedGoesBack() {
        let pool = NodeChunkPool(capacity: 8)
        var table = NodeTable(pool: pool)
        for i in 0..<(NodeTable.chunkSize + 1) { _ = table.append(record(i)) }
        for i in 0..<(NodeTable.chunkSize - 1) { table.drop(i) }
        #expect(pool.held == 0)
        #expect(table.drop(NodeTable.chunkSize - 1) == 0) // the last of chunk 0
        #expect(pool.held == 1)
        #expect(table.contains(NodeTable.chunkSize))
        #expect(table[NodeTable.chunkSize].name == "n\(NodeTable.chunkSize)")
        table.deallocate()
        #expect(pool.held == 2)
    }

    @Test func thePoolHoldsAtMostItsCapacityAndFreesTheRest() {
        let pool = NodeChunkPool(capacity: 3)
        var table = NodeTable(pool: pool)
        for i in 0..<(5 * NodeTable.chunkSize) { _ = table.append(record(i)) }
        table.deallocate()
        #expect(pool.held == 3)
        #expect(NodeChunkPool.shared.capacity * NodeChunkPool.chunkBytes <= 16 << 20)
    }

    @Test func threadsTakeAndGiveConcurrently() async {
        let pool = NodeChunkPool(capacity: 16)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 {
                        let a = pool.take()
                        let b = pool.take()
                        #expect(a != b)
                        pool.give(a)
                        pool.give(b)
                    }
                }
            }
        }
        #expect(pool.held <= 8)
        #expect(pool.held >= 2)
    }
}

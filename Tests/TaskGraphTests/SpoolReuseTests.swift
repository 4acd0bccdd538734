import Testing
@testable import TaskGraph

/// The spool keeps its chunks for reuse and the consumer maps spares ahead of the producer,
/// so a program's thread does not take page faults on fresh chunk memory; memory stays
/// bounded by `maxChunks + 1` chunks.
@Suite struct SpoolReuseTests {
    @Test func theConsumerPreparesSparesAndChunksAreReusedNotReallocated() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 64, overflow: .drop, prepared: 3)
        #expect(spool.chunkCounts.all == 1)
        for i in 0..<(16 * 10) { _ = spool.append(i) }   // 10 full chunks, the 11th empty
        let first = spool.take()
        #expect(first.flatMap { $0 } == Array(0..<160))
        // After a take the consumer has mapped `prepared` spares for the producer.
        #expect(spool.chunkCounts.spare == 3)
        spool.recycle(first)
        let afterBurst = spool.chunkCounts
        #expect(afterBurst.spare >= 10)   // every recycled chunk kept, not freed
        // The same burst again allocates nothing new.
        for i in 0..<(16 * 10) { _ = spool.append(i) }
        #expect(spool.chunkCounts.all == afterBurst.all)
        spool.recycle(spool.take())
        #expect(spool.chunkCounts.all == afterBurst.all)
    }

    @Test func chunksNeverExceedTheBoundEvenWhenPreparedAskForMore() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 4, overflow: .drop, prepared: 10)
        for round in 0..<5 {
            for i in 0..<100 { _ = spool.append(round * 100 + i) }
            spool.recycle(spool.take())
            _ = spool.resume()
            #expect(spool.chunkCounts.all <= 5)
        }
    }

    @Test func withoutPreparedSparesNothingIsMappedAhead() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 8, overflow: .drop)
        for i in 0..<20 { _ = spool.append(i) }
        spool.recycle(spool.take())
        #expect(spool.chunkCounts.spare == 2)   // the two chunks used, kept; none extra
    }

    @Test func sparesBeyondTheKeptNumberAreFreed() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 64, overflow: .drop, prepared: 2, keptSpares: 3)
        for i in 0..<(16 * 10) { _ = spool.append(i) }
        spool.recycle(spool.take())
        // 10 chunks came back; 3 are kept, the rest freed: the filling chunk plus 3 remain.
        #expect(spool.chunkCounts.spare == 3)
        #expect(spool.chunkCounts.all == 4)
        var one = spool.take()
        #expect(one.isEmpty)
        for i in 0..<16 { _ = spool.append(i) }
        one = spool.take()
        #expect(one.count == 1)
        spool.recycle(&one[0])
        #expect(spool.chunkCounts.spare <= 3)
    }
}

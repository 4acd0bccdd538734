import Testing

@testable import TaskGraph

/// The spool keeps its chunks for reuse and the consumer maps spares ahead of the producer,
/// so a program's thread does not take page faults on fresh chunk memory; memory stays
/// bounded by `maxChunks + 1` chunks.
@Suite struct SpoolReuseTests {
    @Test func theConsumerPreparesSparesAndChunksAreReusedNotReallocated() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 64, overflow: .drop, prepared: 3)
        #expect(spool.chunkCounts.all == 1)
        for i in 0..<(16 * 10) { _ = spool.append(i) } // 9 chunks queued, the 10th full
        #expect(spool.chunkCounts.all == 10)
        #expect(spool.takeAll() == Array(0..<160))
        let afterBurst = spool.chunkCounts
        #expect(afterBurst.spare == 9) // every drained chunk kept, not freed
        #expect(afterBurst.all == 10) // those were spares enough: none prepared
        // The same burst again needs one chunk more (the full one being filled is queued
        // first), then nothing new, however often it comes.
        var counts: [Int] = []
        for _ in 0..<4 {
            for i in 0..<(16 * 10) { _ = spool.append(i) }
            #expect(spool.takeAll().count == 160)
            counts.append(spool.chunkCounts.all)
        }
        #expect(counts == [11, 11, 11, 11])
    }

    @Test func theSpareEmptiedLongestAgoIsFilledFirst() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 64, overflow: .drop)
        var filled: [UnsafeMutableRawPointer] = []
        for i in 0..<(16 * 4) { // four chunks: three queued, the fourth full
            _ = spool.append(i)
            if i % 16 == 0 { filled.append(spool.chunkOrder.fill) } // a chunk's first value
        }
        #expect(spool.takeAll().count == 64)
        // Drained in the order they were filled, and reused in that order.
        #expect(spool.chunkOrder.spares == Array(filled[0..<3]))
        _ = spool.append(64) // the fourth chunk is queued, the first drained is filled
        #expect(spool.chunkOrder.fill == filled[0])
        #expect(spool.chunkOrder.spares == Array(filled[1..<3]))
    }

    @Test func theConsumerMapsPreparedSparesWhenTooFewCameBack() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 64, overflow: .drop, prepared: 3)
        for i in 0..<20 { _ = spool.append(i) } // one chunk queued, 4 values in the next
        #expect(spool.takeAll() == Array(0..<20))
        #expect(spool.chunkCounts.spare == 3) // the drained one and two mapped here
        #expect(spool.chunkCounts.all == 4)
    }

    @Test func chunksNeverExceedTheBoundEvenWhenPreparedAskForMore() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 4, overflow: .drop, prepared: 10)
        for round in 0..<5 {
            for i in 0..<100 { _ = spool.append(round * 100 + i) }
            spool.discard()
            _ = spool.resume()
            #expect(spool.chunkCounts.all <= 5)
        }
    }

    @Test func withoutPreparedSparesNothingIsMappedAhead() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 8, overflow: .drop)
        for i in 0..<20 { _ = spool.append(i) }
        #expect(spool.takeAll() == Array(0..<20))
        #expect(spool.chunkCounts.spare == 1) // the drained chunk, kept; none extra
        #expect(spool.chunkCounts.all == 2) // and the one being filled
    }

    @Test func sparesBeyondTheKeptNumberAreFreed() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 64, overflow: .drop, prepared: 2, keptSpares: 3)
        for i in 0..<(16 * 10) { _ = spool.append(i) }
        #expect(spool.takeAll().count == 160)
        // 9 chunks came back; 3 are kept, the rest freed: the filling chunk plus 3 remain.
        #expect(spool.chunkCounts.spare == 3)
        #expect(spool.chunkCounts.all == 4)
        #expect(spool.takeAll().isEmpty)
        for i in 0..<16 { _ = spool.append(i) }
        #expect(spool.takeAll() == Array(0..<16))
        #expect(spool.chunkCounts.spare <= 3)
        #expect(spool.chunkCounts.all <= 4)
    }
}

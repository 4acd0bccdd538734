import Dispatch
import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// The spool between observers (the program's threads) and the recorder's, server's and
/// tracer's own threads: order, bounds, and what a full spool does.
@Suite struct SpoolTests {
    @Test func takesEverythingInOrderAcrossChunks() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 100, overflow: .drop)
        for i in 0..<1000 { _ = spool.append(i) }
        #expect(spool.takeAll() == Array(0..<1000))
        #expect(spool.takeAll().isEmpty)
        _ = spool.append(7)
        _ = spool.append(8, 9)
        #expect(spool.takeAll() == [7, 8, 9])
    }

    @Test func aConsumerMarkedIdleIsWokenByTheNextAppendOnly() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 100, overflow: .drop)
        #expect(spool.append(1) == .queued) // nobody sleeps
        #expect(!spool.markIdleIfEmpty()) // something waits: drain first
        #expect(spool.takeAll() == [1])
        #expect(spool.markIdleIfEmpty())
        #expect(spool.append(2) == .queuedFirst)
        #expect(spool.append(3) == .queued)
        #expect(spool.takeAll() == [2, 3])
        // Also when the append starts a new chunk.
        for i in 0..<16 { _ = spool.append(i) }
        #expect(spool.takeAll() == Array(0..<16))
        #expect(spool.markIdleIfEmpty())
        #expect(spool.append(99) == .queuedFirst)
        #expect(spool.takeAll() == [99])
    }

    @Test func aDrainTakesWhatIsPublishedInTheChunkBeingFilledThenTheRestLater() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 100, overflow: .drop)
        for i in 0..<10 { _ = spool.append(i) }
        #expect(spool.takeAll() == Array(0..<10))
        for i in 10..<40 { _ = spool.append(i) } // fills that chunk, then one more and a half
        #expect(spool.takeAll() == Array(10..<40))
        #expect(spool.chunkCounts.all <= 3)
    }

    @Test func aBoundedDrainTakesTheOldestAndLeavesTheRestInOrder() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 100, overflow: .drop)
        for i in 0..<40 { _ = spool.append(i) } // two full chunks queued, 8 in the third
        func take(_ limit: Int) -> [Int] {
            var out: [Int] = []
            let n = spool.drain(limit: limit) { out.append($0) }
            #expect(n == out.count)
            return out
        }
        #expect(take(10) == Array(0..<10))
        #expect(take(10) == Array(10..<20)) // the rest of the first chunk, then the second's
        for i in 40..<45 { _ = spool.append(i) }
        #expect(take(20) == Array(20..<40)) // the second chunk, then the one being filled
        #expect(take(100) == Array(40..<45))
        #expect(take(100).isEmpty)
        for i in 45..<100 { _ = spool.append(i) }
        #expect(take(3) == [45, 46, 47])
        #expect(spool.takeAll() == Array(48..<100))
        #expect(spool.chunkCounts.all <= 6)
    }

    @Test func valuesNobodyTookAreReleasedWithTheSpool() {
        final class Token {}
        weak var first: Token?
        weak var last: Token?
        do {
            let spool = Spool<Token>(chunkSize: 16, maxChunks: 8, overflow: .drop)
            for i in 0..<40 {
                let t = Token()
                if i == 0 { first = t }
                if i == 39 { last = t }
                _ = spool.append(t)
            }
            var n = 0
            spool.drain { _ in n += 1 } // takes the 40
            #expect(n == 40)
            for _ in 0..<20 { _ = spool.append(Token()) }
            let t = Token()
            last = t
            _ = spool.append(t)
        }
        #expect(first == nil)
        #expect(last == nil)
    }

    @Test func aFullDropSpoolCountsWhatItDroppedUntilResumed() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 4, overflow: .drop)
        var results: [Spool<Int>.AppendResult] = []
        for i in 0..<100 { results.append(spool.append(i)) }
        let queued = results.filter { $0 != .dropped }.count
        #expect(queued == 64) // at most `maxChunks` chunks of 16
        #expect(spool.isOverflowed)
        #expect(spool.discard() == 64)
        #expect(spool.resume() == 36)
        #expect(!spool.isOverflowed)
        #expect(spool.append(1) == .queued)
        #expect(spool.takeAll() == [1])
    }

    @Test func aFullWaitSpoolWaitsForTheConsumerThenGivesUpWhenItStalls() {
        // A consumer that takes once after 50 ms: the producer waits, then goes on (the
        // limit is 30 s: a loaded machine may start the consumer seconds late).
        let patient = Spool<Int>(chunkSize: 16, maxChunks: 4, overflow: .wait(seconds: 30))
        for i in 0..<64 {
            let r = patient.append(i)
            #expect(r == .queued || r == .queuedFirst)
        }
        let consumer = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            usleep(50_000)
            patient.discard()
            consumer.signal()
        }
        #expect(patient.append(1000) != .failed)
        consumer.wait()
        #expect(!patient.failed)
        // Nobody takes: after 2 s without progress the spool fails for good (a slow machine
        // only makes that later, so a short limit is safe here).
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 4, overflow: .wait(seconds: 2))
        for i in 0..<64 { _ = spool.append(i) }
        var last: Spool<Int>.AppendResult = .queued
        for i in 0..<100 where last != .failed { last = spool.append(i) }
        #expect(last == .failed)
        #expect(spool.failed)
        #expect(spool.append(1) == .failed)
    }
}

/// The recorder encodes on its own thread; `flush()` makes everything delivered so far
/// readable in the file.
@Suite struct RecorderSpoolTests {
    @Test func flushWritesEveryEventDeliveredSoFar() throws {
        let graph = Graph()
        let tmp = TemporaryDirectory("taskgraph-spooltest")
        defer { tmp.remove() }
        let path = tmp.file("log.tglog")
        defer { unlink(path) }
        let recorder = try GraphRecorder(graph: graph, path: path, producer: "test")
        for i in 0..<10_000 {
            GraphTask<Int, Never>(name: "t\(i)", graph: graph) { succeed, _ in succeed(i) }.execute()
        }
        recorder.flush()
        let text = try String(decoding: readAll(path), as: UTF8.self)
        #expect(text.contains("\"name\":\"t9999\""))
        let lastLine = text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.contains("\"ev\":\"state\"")) // the last task's completion
        recorder.finish()
        let done = try String(decoding: readAll(path), as: UTF8.self)
        #expect(done.hasSuffix("\"outcome\":\"succeeded\"}}\n"))
        #expect(recorder.writeError == nil)
    }

}

/// A recording whose handle the caller dropped still records until the process ends (the
/// graph holds it), as before the spool.
@Suite struct RecorderLifetimeTests {
    @Test func aDroppedRecordingKeepsRecording() throws {
        let graph = Graph()
        let tmp = TemporaryDirectory("taskgraph-spooltest-dropped")
        defer { tmp.remove() }
        let path = tmp.file("log.tglog")
        defer { unlink(path) }
        _ = try graph.record(to: path, producer: "test")
        for i in 0..<100_000 { // 300,000 events: more than the spool holds
            GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) }.execute()
        }
        GraphTask<Int, Never>(name: "last one", graph: graph) { succeed, _ in succeed(0) }.execute()
        RecorderRegistry.shared.flushAll()
        let text = String(decoding: try readAll(path), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(text.contains("\"name\":\"last one\""), "\(lines.count) lines, last: \(lines.last ?? "")")
    }
}

/// The file's bytes.
private func readAll(_ path: String) throws -> [UInt8] {
    guard let f = fopen(path, "rb") else { return [] }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out.append(contentsOf: buf[0..<n])
    }
    return out
}

extension Spool {
    /// Everything queued so far, in order (the consumer's `drain`, collected).
    func takeAll() -> [Element] {
        var out: [Element] = []
        drain { out.append($0) }
        return out
    }
}

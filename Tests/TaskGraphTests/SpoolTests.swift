import Dispatch
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
        let chunks = spool.take()
        #expect(chunks.flatMap { $0 } == Array(0..<1000))
        spool.recycle(chunks)
        #expect(spool.take().isEmpty)
        #expect(spool.append(7) == .queuedFirst)
        #expect(spool.append(8) == .queued)
        #expect(spool.take().flatMap { $0 } == [7, 8])
    }

    @Test func aFullDropSpoolCountsWhatItDroppedUntilResumed() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 4, overflow: .drop)
        var results: [Spool<Int>.AppendResult] = []
        for i in 0..<100 { results.append(spool.append(i)) }
        let queued = results.filter { $0 != .dropped }.count
        #expect(queued == 64)   // at most `maxChunks` chunks of 16
        #expect(spool.isOverflowed)
        #expect(spool.discard() == 64)
        #expect(spool.resume() == 36)
        #expect(!spool.isOverflowed)
        #expect(spool.append(1) == .queuedFirst)
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
            patient.recycle(patient.take())
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
        let path = "/tmp/taskgraph-spooltest-\(getpid()).tglog"
        defer { unlink(path) }
        let recorder = try GraphRecorder(graph: graph, path: path, producer: "test")
        for i in 0..<10_000 {
            GraphTask<Int, Never>(name: "t\(i)", graph: graph) { succeed, _ in succeed(i) }.execute()
        }
        recorder.flush()
        let text = try String(decoding: readAll(path), as: UTF8.self)
        #expect(text.contains("\"name\":\"t9999\""))
        let lastLine = text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine.contains("\"ev\":\"state\""))   // the last task's completion
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
        let path = "/tmp/taskgraph-spooltest-dropped-\(getpid()).tglog"
        defer { unlink(path) }
        _ = try graph.record(to: path, producer: "test")
        for i in 0..<100_000 {   // 300,000 events: more than the spool holds
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

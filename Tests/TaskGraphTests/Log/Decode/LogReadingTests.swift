import TaskGraph // not @testable: the public reading API is all a program needs
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program records a graph, then loads the log, walks its events, rebuilds the graph at
/// any point, and reads the same log as a stream arriving in pieces.
@Suite struct LogReadingTests {
    @Test func aRecordedLogReadsBackEventByEventAndAtAnyPoint() throws {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let tmp = TemporaryDirectory("taskgraph-log-reading")
        defer { tmp.remove() }
        let path = tmp.file("log.jsonl")
        defer { unlink(path) }
        let rec = try g.record(to: path, producer: "test")
        let a = GraphTask<Void, Never>.delay(seconds: 1, name: "a", graph: g)
        let b = GraphTask<Void, Never>.delay(seconds: 2, name: "b", graph: g)
        let both = GraphTask.sequential([a, b], name: "both", graph: g)
        both.execute()
        clock.runUntilIdle()
        rec.finish()

        let log = try LogReader.load(path: path)
        #expect(log.header.producer == "test")
        #expect(log.outcome == "succeeded")
        #expect(log.eventCount == log.events.count && log.eventCount > 6)
        #expect(Array(log.events.map(\.sequence)) == Array(1...UInt64(log.eventCount)))
        // Halfway: a done, b executing; at the end both succeeded.
        let middle = log.snapshot(atTime: 1.5)
        #expect(middle[a.id]?.state == .completed && middle[b.id]?.state == .executing)
        #expect(log.finalSnapshot[b.id]?.state == .completed)
        #expect(log.finalSnapshot.roots == [both.id])
        #expect(log.initialSnapshot?.nodes.isEmpty ?? true) // recording began before the graph had nodes

        // The same bytes as a live stream, seven bytes at a time: the same events, then end.
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = read(fd, &chunk, chunk.count), n > 0 { bytes += chunk[0..<n] }
        var stream = LogStream(name: "stream", live: false)
        var streamed: [GraphEvent] = []
        var ended = false
        var k = 0
        while k < bytes.count {
            for item in try stream.feed(Array(bytes[k..<min(k + 7, bytes.count)])) {
                switch item {
                case .events(let e): streamed += e
                case .end: ended = true
                default: break
                }
            }
            k += 7
        }
        #expect(ended && stream.sawEnd)
        #expect(streamed.map(\.change) == Array(log.events.map(\.change)))
    }
}

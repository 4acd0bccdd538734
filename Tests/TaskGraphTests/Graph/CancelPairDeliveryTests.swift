import Synchronization
import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// A cancel request and the state change it makes are delivered together (one step): every
/// observer, and a recorder behind them, still gets both, in order, numbered without a gap.
@Suite struct CancelPairDeliveryTests {
    @Test func observerAndRecorderSeeEachCancelRequestThenItsStateChange() throws {
        let g = Graph(clock: VirtualClock())
        let tmp = TemporaryDirectory("taskgraph-pair")
        defer { tmp.remove() }
        let path = tmp.file("log.jsonl")
        defer { unlink(path) }
        let seen = Mutex<[GraphEvent]>([])
        let observation = g.observe { e in seen.withLock { $0.append(e) } }
        let rec = try g.record(to: path, producer: "test") // the keeping observer, last
        let leaves = (0..<3).map { i in GraphTask<Int, Never>(name: "leaf\(i)", graph: g) { _, _ in } }
        let root = GraphTask<Int, Never>.concurrent(leaves, name: "root", graph: g).execute()
        root.cancel()
        rec.finish()
        observation.cancel()

        let events = seen.withLock { $0 }
        #expect(events.map(\.sequence) == Array(1...UInt64(events.count)))
        // For each of the 4 nodes: cancelRequested immediately followed by its `cancelled`.
        var pairs = 0
        for (a, b) in zip(events, events.dropFirst()) {
            if case .cancelRequested(let id, _) = a.change,
                case .stateChanged(let id2, let state, _, _) = b.change, id == id2, state == .cancelled
            {
                pairs += 1
                #expect(a.time == b.time)
            }
        }
        #expect(pairs == 4)

        // The log holds the same changes in the same order (the recorder numbers its own seq).
        let log = try LogReader.load(path: path)
        #expect(Array(log.events.map(\.change)) == events.map(\.change))
        #expect(Array(log.events.map(\.sequence)) == Array(1...UInt64(log.eventCount)))
    }

    @Test func aPairThatCrossesAChunkBoundaryArrivesWhole() {
        let spool = Spool<Int>(chunkSize: 16, maxChunks: 8, overflow: .wait(seconds: 1))
        for i in 0..<15 { _ = spool.append(i) }
        _ = spool.append(15, 16) // one slot left in the chunk: the pair goes one by one
        _ = spool.append(17, 18)
        let values = spool.takeAll()
        #expect(values == Array(0...18))
    }
}

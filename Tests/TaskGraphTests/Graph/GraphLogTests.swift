import Synchronization
import Testing

@testable import TaskGraph

/// `Graph.log`: records under nodes, bounded, and dropped beyond the budget.
@Suite struct GraphLogTests {
    private final class Records: Sendable {
        private final class Items: Sendable {
            let m = Mutex<[(NodeID, NodeLogRecord)]>([])
        }
        private let items = Items()
        let observation: any GraphObservation
        init(_ g: Graph) {
            let items = self.items
            observation = g.observe { e in
                if case .log(let id, let r) = e.change { items.m.withLock { $0.append((id, r)) } }
            }
        }
        var list: [(NodeID, NodeLogRecord)] { items.m.withLock { $0 } }
    }

    @Test func aRecordOfOneMegabyteIsCutAt64KiBWithAMarker() {
        let g = Graph(clock: VirtualClock())
        let records = Records(g)
        let t = GraphTask<Int, Never>.pending(name: "big", graph: g).task
        g.log(t.id, level: "info", message: String(repeating: "x", count: 1 << 20), metadata: ["k": "v"])
        let r = records.list
        #expect(r.count == 1)
        #expect(r.first?.1.message.utf8.count == 65_536 + NodeLogRecord.cutMarker.utf8.count)
        #expect(r.first?.1.message.hasSuffix("x… [cut at 64 KiB]") == true)
        #expect(r.first?.1.metadata == ["k": "v"])
    }

    @Test func beyondTheBudgetRecordsAreDroppedAndTheNextOneCountsThem() {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let records = Records(g)
        let t = GraphTask<Int, Never>.pending(name: "chatty", graph: g).task
        for i in 0..<(Graph.logBudgetPerSecond + 1_204) { g.log(t.id, level: "debug", message: "line \(i)") }
        clock.advance(by: 1)
        g.log(t.id, level: "info", message: "after")
        let r = records.list
        #expect(r.count == Graph.logBudgetPerSecond + 1)
        #expect(r.last?.1 == NodeLogRecord(level: "info", message: "after", droppedBefore: 1_204))
        #expect(r.dropLast().allSatisfy { $0.1.droppedBefore == 0 })
    }

    @Test func unknownNodesAreIgnored() {
        let g = Graph(clock: VirtualClock())
        let records = Records(g)
        g.log(NodeID(12345), level: "info", message: "nobody")
        #expect(records.list.isEmpty)
    }
}

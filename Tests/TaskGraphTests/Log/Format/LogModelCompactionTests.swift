import Testing

@testable import TaskGraph

/// A model fed by a program with retention (an attached server) keeps what is live, not every
/// node it has seen: dropped nodes are forgotten once they are most of the table.
@Suite struct LogModelCompactionTests {
    @Test func aMillionRequestsStreamLeavesOnlyTheLiveNodes() {
        var model = LogModel()
        model.add(LogModel.Node(id: 0, kind: "scope", name: "server", weight: 1)) // lives throughout
        var next = 1
        var live: [Int] = []
        for _ in 0..<100_000 {
            let root = next
            model.add(LogModel.Node(id: Int32(root), kind: "span", name: "GET /", weight: 1))
            model.add(LogModel.Node(id: Int32(root + 1), kind: "scope", name: "auth", weight: 1))
            model.attach(root + 1, to: root, at: 0)
            next += 2
            live.append(root)
            if live.count > 10 {
                let oldest = live.removeFirst()
                model.drop([oldest + 1, oldest])
            }
        }
        #expect(model.liveCount == 1 + 2 * 10)
        #expect(model.nodes.count < 40_000) // 200,001 were added
        #expect(model.liveNodesByID().map { Int($0.id) } == [0] + live.flatMap { [$0, $0 + 1] })
        #expect(model.contains(0) && model[0]?.name == "server")
        #expect(model.parentOf(live.last! + 1) == live.last!)
        #expect(!model.contains(live.first! - 2))
        // Ids keep coming after the table moved on, and old ones can come back.
        model.add(LogModel.Node(id: Int32(next), kind: "span", name: "late", weight: 1))
        model.add(LogModel.Node(id: 5, kind: "span", name: "again", weight: 1))
        #expect(model[next]?.name == "late" && model[5]?.name == "again")
        #expect(model.liveNodesByID().map { Int($0.id) }.first == 0)
        #expect(model.liveNodesByID().map { Int($0.id) } == model.liveNodesByID().map { Int($0.id) }.sorted())
    }
}

import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// Children's positions (`index`) are renumbered once a batch, not once a change: dropping the
/// oldest of thousands of siblings request after request (a server's retention) renumbered
/// them all each time. After the batch every position is right again.
@Suite struct DeferredReindexTests {
    @Test func positionsAreRightAfterABatchOfDropsAndInsertsAtTheFront() {
        var tree = TreeModel()
        var seq: UInt64 = 0
        func send(_ change: GraphChange, into tree: inout TreeModel) {
            seq += 1
            tree.absorb(GraphEvent(sequence: seq, time: 0, change: change))
        }
        send(
            .added(id: NodeID(0), kind: NodeKind.concurrent, name: "server", weight: 1, parent: nil, index: nil),
            into: &tree)
        for id in 1...1000 {
            send(
                .added(id: NodeID(id), kind: NodeKind.task, name: "r\(id)", weight: 1, parent: NodeID(0), index: nil),
                into: &tree)
        }
        tree.withDeferredRollUp { tree in
            for id in 1...500 { send(.dropped(ids: [NodeID(id)]), into: &tree) }
            send(
                .added(id: NodeID(2000), kind: NodeKind.task, name: "first", weight: 1, parent: NodeID(0), index: 0),
                into: &tree)
            send(
                .added(id: NodeID(2001), kind: NodeKind.task, name: "third", weight: 1, parent: NodeID(0), index: 2),
                into: &tree)
        }
        let kids = tree[0].children.map { Int($0) }
        #expect(kids.count == 502)
        #expect(kids.prefix(3) == [2000, 501, 2001])
        for (k, c) in kids.enumerated() { #expect(Int(tree[c].index) == k) }
        #expect(tree.pendingReindex.isEmpty)
    }
}

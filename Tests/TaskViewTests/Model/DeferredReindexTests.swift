import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// Children's positions (`index`) are renumbered once a batch, not once a change: dropping the
/// oldest of thousands of siblings request after request (a server's retention) renumbered
/// them all each time. After the batch every position is right again.
@Suite struct DeferredReindexTests {
    @Test func positionsAreRightAfterABatchOfDropsAndInsertsAtTheFront() {
        var s = EventScript()
        s.add(0, "server", kind: NodeKind.concurrent)
        for id in 1...1000 { s.add(id, "r\(id)", parent: 0) }
        let before = s.events.count
        for id in 1...500 { s.emit(.dropped(ids: [NodeID(id)])) }
        s.emit(.added(id: NodeID(2000), kind: NodeKind.task, name: "first", weight: 1, parent: NodeID(0), index: 0))
        s.emit(.added(id: NodeID(2001), kind: NodeKind.task, name: "third", weight: 1, parent: NodeID(0), index: 2))
        var tree = TreeModel()
        for e in s.events[..<before] { tree.absorb(e) }
        tree.withDeferredRollUp { tree in
            for e in s.events[before...] { tree.absorb(e) }
        }
        let kids = tree[0].children.map { Int($0) }
        #expect(kids.count == 502)
        #expect(kids.prefix(3) == [2000, 501, 2001])
        for (k, c) in kids.enumerated() { #expect(Int(tree[c].index) == k) }
        #expect(tree.pendingReindex.isEmpty)
    }

    @Test func oneDropOfManySiblingsKeepsTheRestInOrderWithTheirCounts() {
        // A resync drops what the program no longer has in one event: thousands of a
        // program row's children, each with a child of its own, gone in one pass.
        var s = EventScript()
        s.add(0, "server", kind: NodeKind.concurrent)
        for id in 1...3000 {
            s.add(id, "r\(id)", parent: 0)
            s.add(10_000 + id, "s\(id)", parent: id)
            s.start(id)
            if id % 3 == 0 { s.succeed(id) }
        }
        let before = s.events.count
        // Counts still kept at nodes when the drop comes: some of the dropped, some not.
        for id in [1, 2, 5, 8, 2999] { s.start(10_000 + id) }
        let odd = (1...3000).filter { $0 % 2 == 1 }
        s.emit(.dropped(ids: odd.flatMap { [NodeID(10_000 + $0), NodeID($0)] }))
        var tree = TreeModel()
        for e in s.events[..<before] { tree.absorb(e) }
        tree.withDeferredRollUp { tree in
            for e in s.events[before...] { tree.absorb(e) }
        }
        let kids = tree[0].children.map { Int($0) }
        #expect(kids == Array(stride(from: 2, through: 3000, by: 2)))
        for (k, c) in kids.enumerated() { #expect(Int(tree[c].index) == k) }
        #expect(!tree.contains(1) && !tree.contains(10_001) && tree.contains(10_002))
        #expect(subtreeCountsAreExact(tree))
        #expect(tree[0].subtree.count(.succeeded) == 500) // 6, 12, ... 3000
        #expect(tree[2].subtree.count(.executing) == 2) // r2 and s2, started in the batch
        #expect(tree[0].subtree.count(.executing) == 1500 - 500 + 2) // even, unsettled; s2, s8
    }
}

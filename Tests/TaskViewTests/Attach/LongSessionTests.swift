import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// A viewer attached for hours to a program whose finished roots are dropped: the tree holds
/// a slot per live node, not one per id the program has used, and a node that lives the
/// whole time (a long-lived root) stays, with its children, filters and order intact.
@Suite struct LongSessionTests {
    @Test func droppedRootsLetTheTableGoAndALongLivedRootStays() {
        var tree = TreeModel()
        var seq: UInt64 = 0
        func send(_ change: GraphChange) {
            seq += 1
            tree.absorb(GraphEvent(sequence: seq, time: 0, change: change))
        }
        send(.added(id: NodeID(0), kind: NodeKind.concurrent, name: "service", weight: 1, parent: nil, index: nil))
        send(.added(id: NodeID(1), kind: NodeKind.task, name: "watcher", weight: 1, parent: NodeID(0), index: 0))
        send(.stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil))
        // 200,000 requests, each a root dropped (retention) 50 roots after it finished.
        for id in 2..<200_002 {
            send(.added(id: NodeID(id), kind: NodeKind.task, name: "request \(id)", weight: 1, parent: nil, index: nil))
            send(.stateChanged(id: NodeID(id), state: .completed, failed: false, message: nil))
            if id >= 52 { send(.dropped(ids: [NodeID(id - 50)])) }
        }
        #expect(tree.liveCount == 52)
        #expect(tree.nodes.storedCount < 40_000) // 200,002 ids were used
        #expect(tree.roots.first == 0 && tree[0].children == [1] && tree[1].state == .executing)
        let live = Array(tree.nodes.ids).filter { tree.contains($0) }
        #expect(live == [0, 1] + Array(199_952..<200_002))

        var view = ViewState()
        view.filter = "watcher"
        let mask = FilterCache.mask(tree: tree, view: view)
        #expect(mask?[1] == true && mask?[0] == true && mask?[199_999] == false)
        view.filter = "request 199999"
        let later = FilterCache.mask(tree: tree, view: view)
        #expect(later?[199_999] == true && later?[1] == false)
    }
}

/// The same over a socket: `taskview attach`'s id mapping keeps the live nodes only.
@Suite struct LongAttachSessionTests {
    @Test func theIdMapFollowsTheLiveNodes() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "/s/1.sock", pid: nil)
        var text = AttachLines.header(pid: 11, name: "service") + AttachLines.snapshot(seq: 1)
        var seq = 1
        func line(_ body: String) {
            seq += 1
            text += "{\"seq\":\(seq),\"t\":1,\(body)}\n"
        }
        for id in 100..<20_100 {
            line(#""ev":"add","id":\#(id),"kind":"task","name":"request","weight":1"#)
            line(#""ev":"state","id":\#(id),"state":"completed""#)
            if id >= 110 { line(#""ev":"drop","ids":[\#(id - 10)]"#) }
        }
        try a.apply(text, program: p, tree: &tree)
        #expect(a.mappedCount < 20) // the snapshot's nodes and the last ten requests
        #expect(tree.nodes.storedCount < 10_000)
        let last = tree[tree.roots[0]].children.map { Int($0) }.last!
        #expect(a.target(of: last)?.remote == 20_099)
    }
}

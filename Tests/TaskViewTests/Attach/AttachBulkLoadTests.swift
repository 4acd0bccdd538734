import Foundation
import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// An attach snapshot goes into the dashboard tree in one pass (`TreeModel.load`) but is
/// still recorded as events: replaying the recording must give the very same tree.
@Suite struct AttachBulkLoadTests {
    /// Every field a row or a later event depends on, NaN-safe.
    func describe(_ tree: TreeModel) -> [String] {
        tree.nodes.ids.filter { tree.contains($0) }.map { i in
            let n = tree[i]
            return "\(i) \(n.kind) \(n.name) p\(n.parent) @\(n.index) \(n.children) w\(n.weight) \(n.state) "
                + "f\(n.failed) s\(n.skipped) \(n.fraction) \(n.info ?? "-") \(n.message ?? "-") "
                + "a\(n.addedAt) b\(n.startedAt) e\(n.endedAt) r\(n.refOf) \(n.display)"
        }
    }

    @Test func aBulkLoadedSnapshotIsTheTreeItsRecordingReplaysTo() throws {
        let path = temporaryLogPath("bulk")
        defer { unlink(path) }
        let snapshot =
            "{\"seq\":1,\"t\":3,\"ev\":\"snapshot\",\"part\":1,\"parts\":1,\"nodes\":["
            + #"{"id":0,"kind":"concurrent","name":"root","weight":1,"state":"executing","fraction":0.4,"info":"half"},"#
            + #"{"id":1,"kind":"task","parent":0,"index":0,"name":"done","weight":2,"state":"completed","fraction":1},"#
            + #"{"id":2,"kind":"task","parent":0,"index":1,"name":"broke","weight":1,"state":"completed","failed":true,"fraction":0.3,"message":"boom"},"#
            + #"{"id":3,"kind":"sequential","parent":0,"index":2,"name":"stopped","weight":1,"state":"cancelled","fraction":0},"#
            + #"{"id":4,"kind":"task","parent":3,"index":0,"name":"never\u001b[2J","weight":1,"state":"notExecuted","fraction":0},"#
            + #"{"id":5,"kind":"ref","parent":0,"index":3,"name":"shared","weight":1,"state":"notExecuted","fraction":0,"of":1},"#
            + #"{"id":7,"kind":"task","name":"second root","weight":1,"state":"completed","fraction":0.5,"info":"x"}"#
            + "]}\n"
        let recorder = try GraphRecorder(path: path, producer: "test", scenario: nil, seed: nil)
        var a = AttachTree()
        a.recorder = recorder
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        try a.apply(AttachLines.header(pid: 3, name: "svc") + snapshot, program: p, tree: &tree)
        recorder.finish()
        // The bulk load did happen, with the states the snapshot gives.
        let row = tree.roots[0]
        #expect(tree[row].children.count == 2)
        let root = Int(tree[row].children[0])
        #expect(tree[root].children.map { tree[Int($0)].display } == [.succeeded, .failed, .cancelled, .notExecuted])
        let never = Int(tree[Int(tree[root].children[2])].children[0])
        #expect(tree[never].display == .skipped && tree[never].name == "never?[2J")
        #expect(tree[Int(tree[root].children[3])].refOf == tree[root].children[0])
        #expect(tree[Int(tree[row].children[1])].fraction == 0.5)

        let log = try LogReader.load(path: path)
        var replayed = TreeModel()
        replayed.absorb(log.events)
        #expect(describe(replayed) == describe(tree))
        #expect(replayed.counts == tree.counts)
        #expect(replayed.executingOrder == tree.executingOrder)
    }
}

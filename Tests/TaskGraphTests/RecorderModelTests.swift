import Testing

@testable import TaskGraph

/// The recorder's column model keeps names only for named nodes: what its snapshots show
/// must still be every live node's current name.
@Suite struct RecorderModelTests {
    private func names(_ m: RecorderModel) -> [Int32: String] {
        Dictionary(uniqueKeysWithValues: m.liveNodesByID().map { ($0.id, $0.name) })
    }

    @Test func namedAndUnnamedNodesKeepTheirNames() {
        var m = RecorderModel()
        m.apply(.added(id: NodeID(0), kind: NodeKind.task, name: "fetch", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(4097), kind: NodeKind.task, name: "other chunk", weight: 1, parent: nil, index: nil))
        #expect(names(m) == [0: "fetch", 1: "", 4097: "other chunk"])
        #expect(m.liveCount == 3)
    }

    @Test func aDroppedThenReaddedIdTakesTheNewName() {
        var m = RecorderModel()
        m.apply(.added(id: NodeID(0), kind: NodeKind.task, name: "first", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil))
        m.apply(.dropped(ids: [NodeID(0), NodeID(1)]))
        #expect(names(m).isEmpty)
        m.apply(.added(id: NodeID(0), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "second", weight: 1, parent: nil, index: nil))
        #expect(names(m) == [0: "", 1: "second"])
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "third", weight: 1, parent: nil, index: nil))
        #expect(names(m) == [0: "", 1: "third"])
    }
}

import TaskGraph
import Testing

@testable import TaskViewCore

/// How nodes are matched across runs (diagnose.md, "Nodes are matched across runs by path").
@Suite struct NodePathTests {
    static func add(_ id: Int, _ name: String, parent: Int?) -> GraphEvent {
        GraphEvent(
            sequence: UInt64(id + 1), time: 0,
            change: .added(
                id: NodeID(id), kind: "task", name: name, weight: 1, parent: parent.map { NodeID($0) }, index: nil))
    }

    /// release/{build/{core, core, a/b}, item, item, item}, and a second root `release`.
    static func tree() -> TreeModel {
        var tree = TreeModel()
        tree.absorb([
            add(0, "release", parent: nil),
            add(1, "build", parent: 0),
            add(2, "core", parent: 1),
            add(3, "core", parent: 1),
            add(4, "a/b#1\\", parent: 1),
            add(5, "item", parent: 0),
            add(6, "item", parent: 0),
            add(7, "item", parent: 0),
            add(8, "release", parent: nil),
        ])
        return tree
    }

    @Test func siblingsWithTheSameNameAreToldApartByTheirOrder() {
        let tree = Self.tree()
        let expected = [
            "release", "release/build", "release/build/core", "release/build/core#2", ##"release/build/a\/b\#1\\"##,
            "release/item", "release/item#2", "release/item#3", "release#2",
        ]
        #expect((0...8).map { NodePath.of($0, in: tree) } == expected)
        // One pass over the rows gives the same paths, parents before children.
        #expect(NodePath.rows(in: tree).map(\.path) == [expected[0]] + expected[1...7] + [expected[8]])
        #expect(NodePath.rows(in: tree).map(\.id) == [0, 1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func componentsReadBackWhatWasWritten() {
        let parts = NodePath.components(##"release/build/a\/b\#1\\#3/core"##)
        #expect(parts.map(\.name) == ["release", "build", "a/b#1\\", "core"])
        #expect(parts.map(\.ordinal) == [1, 1, 3, 1])
        #expect(NodePath.component("a/b#1\\", ordinal: 3) == ##"a\/b\#1\\#3"##)
    }
}

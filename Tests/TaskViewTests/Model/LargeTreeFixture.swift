import TaskGraph
import TaskViewCore

/// A large tree and a stream of progress events over it, for tests of the bulk paths
/// (the figures come from the benchmark package's own EventFactory).
enum LargeTreeFixture {
    /// Events of a graph with `nodes` nodes: one root, groups of up to 1,000 leaves under
    /// it; the root, every group and every other leaf executing.
    static func buildEvents(nodes: Int) -> [GraphEvent] {
        var s = EventScript()
        s.events.reserveCapacity(nodes * 2)
        guard nodes > 0 else { return [] }
        s.emit(.added(id: NodeID(0), kind: NodeKind.concurrent, name: "root", weight: 1, parent: nil, index: nil))
        s.emit(.stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil))
        var id = 1
        var group = -1
        var inGroup = 0
        while id < nodes {
            if group < 0 || inGroup == 999 {
                group = id
                inGroup = 0
                s.emit(
                    .added(
                        id: NodeID(id), kind: NodeKind.allSettled, name: "group \(id)", weight: 1,
                        parent: NodeID(0), index: Int.max))
                s.emit(.stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil))
            } else {
                s.emit(
                    .added(
                        id: NodeID(id), kind: NodeKind.task, name: "task \(id)", weight: 1,
                        parent: NodeID(group), index: Int.max))
                if id % 2 == 0 {
                    s.emit(.stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil))
                }
                inGroup += 1
            }
            id += 1
        }
        return s.events
    }

    /// The tree of `buildEvents(nodes:)`.
    static func makeTree(nodes: Int) -> TreeModel {
        var tree = TreeModel()
        tree.absorb(buildEvents(nodes: nodes))
        return tree
    }

    /// `count` progress events spread over the executing leaves of a `nodes` graph.
    static func progressEvents(nodes: Int, count: Int) -> [GraphEvent] {
        var out: [GraphEvent] = []
        out.reserveCapacity(count)
        let n = max(2, nodes)
        for k in 0..<count {
            let id = 2 + (k * 2) % max(1, n - 2)
            out.append(
                GraphEvent(
                    sequence: UInt64(k + 1), time: Double(k) / 1000,
                    change: .progress(id: NodeID(id), progress: TaskProgress(Double(k % 100) / 100))))
        }
        return out
    }
}

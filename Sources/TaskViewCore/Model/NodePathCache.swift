import Synchronization

/// Row paths (`NodePath.of`) by node id, kept until the tree's structure changes: finding
/// one costs the node's depth times its siblings, and a frame asks for every row it draws
/// (the Δ column, flaky labels).
final class NodePathCache: Sendable {
    private struct State: Sendable {
        var structure: (version: UInt64, slots: Int) = (.max, -1)
        var paths: [Int: String] = [:]
    }
    private let state = Mutex(State())

    /// The path of node `id` of `tree`.
    func path(_ id: Int, in tree: TreeModel) -> String {
        state.withLock { s in
            let structure = (tree.structureVersion, tree.nodes.count)
            if s.structure != structure {
                s.structure = structure
                s.paths.removeAll(keepingCapacity: true)
            }
            if let known = s.paths[id] { return known }
            let p = NodePath.of(id, in: tree)
            s.paths[id] = p
            return p
        }
    }
}

import TaskGraph

extension TreeModel {
    /// One node of a bulk load: its id, the loaded node or row it hangs under, and the node
    /// as the events it stands for would leave it (`parent`, `index`, `skipped` and counts
    /// are filled in here).
    struct Loaded: Sendable {
        var id: Int
        var parent: Int
        var node: Node
    }

    /// Whether `load` may take these ids under `parent`: the parent is present and neither
    /// settled nor skipped (nothing is skipped on arrival), no id is present, each appears
    /// once, and every node's parent is `parent` or a node listed before it.
    func canLoad(_ items: [Loaded], under parent: Int) -> Bool {
        guard contains(parent), !nodes[parent].state.isSettled, !nodes[parent].skipped else { return false }
        var seen = Set<Int>()
        seen.reserveCapacity(items.count)
        for it in items {
            guard it.id >= 0, it.id <= Int(Int32.max), !contains(it.id),
                it.parent == parent || seen.contains(it.parent),
                seen.insert(it.id).inserted
            else { return false }
        }
        return true
    }

    /// Adds a whole subtree in one pass (an attach snapshot of 100,000 nodes), leaving the
    /// model as absorbing its `added`, `ref`, state and progress events one by one would:
    /// children appended in the order given, never-executed nodes below settled ones
    /// skipped. Call only when `canLoad` said yes.
    mutating func load(_ items: [Loaded], sequence last: UInt64, time t: Double) {
        withDeferredRollUp { tree in
            tree.loadNodes(items)
            for it in items where it.node.state.isSettled { tree.markSkippedBelow(it.id) }
        }
        structureVersion &+= 1
        sequence = last
        time = t
    }

    /// The nodes of `load`, their counts rolled up by the caller.
    private mutating func loadNodes(_ items: [Loaded]) {
        for it in items {
            ensure(it.id)
            var node = it.node
            node.exists = true
            node.parent = Int32(it.parent)
            node.index = Int32(nodes[it.parent].children.count)
            nodes[it.parent].children.append(Int32(it.id))
            node.counted = Self.isCounted(kind: node.kind)
            countNode(node.display, node.counted, 1)
            node.subtree = node.ownCount
            if node.state != .notExecuted && !node.startedAt.isNaN { executingOrder.append(Int32(it.id)) }
            nodes[it.id] = node
            addToAncestors(from: it.parent, node.subtree)
        }
    }
}

/// Nodes per `DisplayState` in a subtree (the node itself included), one lane per
/// `DisplayState.rawValue`. Kept in every `TreeModel.Node` and updated per event along the
/// path to the root (O(depth)), or once for a batch of events (`withDeferredRollUp`), so a
/// collapsed row can say what it hides and whether a failure is inside without a walk over
/// the subtree.
package typealias SubtreeCounts = SIMD8<Int32>

extension SubtreeCounts {
    /// One node in `state`.
    @inline(__always)
    static func one(_ state: DisplayState) -> SubtreeCounts {
        var c = SubtreeCounts()
        c[state.rawValue] = 1
        return c
    }

    /// A node moving from `before` to `after`.
    @inline(__always)
    static func change(from before: DisplayState, to after: DisplayState) -> SubtreeCounts {
        var c = SubtreeCounts()
        c[before.rawValue] = -1
        c[after.rawValue] &+= 1
        return c
    }

    /// The count for `state`.
    package func count(_ state: DisplayState) -> Int { Int(self[state.rawValue]) }
}

extension TreeModel.Node {
    /// Counts per state of the node's descendants (itself excluded): what its collapsed
    /// row hides.
    package var descendantCounts: SubtreeCounts { subtree &- ownCount }

    /// What the node adds to its own subtree counts: one in its state, or nothing when the
    /// counts leave it out (`TreeModel.isCounted(kind:)`).
    var ownCount: SubtreeCounts { counted ? .one(display) : SubtreeCounts() }

    /// Whether any descendant failed.
    package var hasFailedDescendant: Bool { descendantCounts.count(.failed) > 0 }
}

extension TreeModel {
    /// Adds `delta` to the subtree counts of `p` and every ancestor of it. A parent chain
    /// never loops (`parentSet` refuses to make one); the step limit only guards a model
    /// built from a hostile snapshot.
    mutating func addToAncestors(from p: Int, _ delta: SubtreeCounts) {
        if deferRollUp(from: p, delta) { return }
        var x = p
        var steps = 0
        while x >= 0 && steps <= nodes.count {
            x = nodes.update(x) { n -> Int in
                guard n.exists else { return -1 }
                n.subtree &+= delta
                return Int(n.parent)
            }
            steps += 1
        }
    }

    /// Whether `a` is `b` or one of its ancestors.
    func isAncestor(_ a: Int, of b: Int) -> Bool {
        var x = b
        var steps = 0
        while x >= 0 && steps <= nodes.count {
            if x == a { return true }
            x = nodes.read(x) { $0.exists ? Int($0.parent) : -1 }
            steps += 1
        }
        return false
    }

    /// Recomputes every node's subtree counts from the parent links (bulk seeding), in one
    /// roll-up (O(nodes) whatever the depth).
    mutating func recountSubtrees() {
        for id in nodes.ids where nodes.read(id, { $0.exists }) {
            nodes.update(id) { $0.subtree = SubtreeCounts() }
        }
        withDeferredRollUp { tree in
            for id in tree.nodes.ids where tree.nodes.read(id, { $0.exists }) {
                tree.addToAncestors(from: id, tree.nodes.read(id) { $0.ownCount })
            }
        }
    }
}

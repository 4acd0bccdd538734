/// Finding the next or previous node in a state (`n`/`N`, `c`/`C`) in row order, folded
/// branches included. The subtree counts say which branches hold one, so a search only
/// descends where a match is: O(depth × siblings), never a pass over the whole tree.
extension DisplayTree {
    /// Whether `x`'s subtree holds a node in `state`.
    func holds(_ x: Int, _ state: DisplayState) -> Bool {
        tree.contains(x) && tree.nodes[x].subtree.count(state) > 0
    }

    /// `x`'s live children in row order (raw tree, adapters not folded).
    func rawChildren(_ x: Int) -> [Int] {
        let kids = children(of: x)
        return kids.filter { tree.contains($0) && Int(tree.nodes[$0].parent) == x }
    }

    /// The siblings of `x` in row order and `x`'s position among them.
    func rawSiblings(_ x: Int) -> ([Int], Int) {
        let p = Int(tree.nodes[x].parent)
        let list = p >= 0 && tree.contains(p) ? rawChildren(p) : rootOrder()
        return (list, list.firstIndex(of: x) ?? list.count)
    }

    /// The first node in `state` in `x`'s subtree, in row order (`x` itself first).
    func firstIn(_ x: Int, _ state: DisplayState) -> Int? {
        var x = x
        while holds(x, state) {
            if tree.nodes[x].display == state { return x }
            guard let c = rawChildren(x).first(where: { holds($0, state) }) else { return nil }
            x = c
        }
        return nil
    }

    /// The last node in `state` in `x`'s subtree, in row order.
    func lastIn(_ x: Int, _ state: DisplayState) -> Int? {
        var x = x
        while holds(x, state) {
            if let c = rawChildren(x).last(where: { holds($0, state) }) {
                x = c
            } else {
                return tree.nodes[x].display == state ? x : nil
            }
        }
        return nil
    }

    /// The first node in `state` after node `from` in row order (raw -1: from the top).
    package func nextNode(in state: DisplayState, after from: NodeIndex) -> NodeIndex? {
        let from = from.rawValue
        guard from >= 0, tree.contains(from) else {
            for r in rootOrder() where holds(r, state) { return firstIn(r, state).map { NodeIndex($0) } }
            return nil
        }
        for c in rawChildren(from) where holds(c, state) { return firstIn(c, state).map { NodeIndex($0) } }
        var x = from
        var steps = 0
        while steps <= tree.nodes.count {
            let (sibs, pos) = rawSiblings(x)
            var k = pos + 1
            while k < sibs.count {
                if holds(sibs[k], state) { return firstIn(sibs[k], state).map { NodeIndex($0) } }
                k += 1
            }
            let p = Int(tree.nodes[x].parent)
            guard p >= 0, tree.contains(p) else { return nil }
            x = p
            steps += 1
        }
        return nil
    }

    /// The last node in `state` before node `from` in row order (raw -1: from the bottom).
    package func prevNode(in state: DisplayState, before from: NodeIndex) -> NodeIndex? {
        let from = from.rawValue
        guard from >= 0, tree.contains(from) else {
            for r in rootOrder().reversed() where holds(r, state) { return lastIn(r, state).map { NodeIndex($0) } }
            return nil
        }
        var x = from
        var steps = 0
        while steps <= tree.nodes.count {
            let (sibs, pos) = rawSiblings(x)
            var k = pos - 1
            while k >= 0 {
                if holds(sibs[k], state) { return lastIn(sibs[k], state).map { NodeIndex($0) } }
                k -= 1
            }
            let p = Int(tree.nodes[x].parent)
            guard p >= 0, tree.contains(p) else { return nil }
            if tree.nodes[p].display == state { return NodeIndex(p) }
            x = p
            steps += 1
        }
        return nil
    }

    /// The row that shows node `x` (its adapter's, when an adapter folds it).
    package func row(of x: NodeIndex) -> RowIndex {
        var r = x.rawValue
        var steps = 0
        while isFolded(r) && steps < 10_000 {
            r = Int(tree.nodes[r].parent)
            steps += 1
        }
        return RowIndex(r)
    }
}

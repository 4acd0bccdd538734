import TaskGraph

/// The tree as rows are drawn: `map` and `after` adapters folded into their child's row, collapsed
/// nodes' children hidden, and a filter applied. Every walk is local (O(depth) or
/// O(siblings)), never a pass over the whole tree, so a 100,000-node graph stays fast:
/// the renderer starts at the top row's node and steps `next` once per row.
package struct DisplayTree {
    package let tree: TreeModel
    package let view: ViewState
    /// Filter visibility by raw id (nil: no filter).
    let mask: FilterMask?
    /// The graph clock (what `duration` sorting measures running nodes against).
    let now: Double
    /// Sibling lists in `view.sort` order, worked out per parent as rows need them.
    let order = SiblingOrder()

    package init(tree: TreeModel, view: ViewState, mask: FilterMask?, now: Double = 0) {
        self.tree = tree
        self.view = view
        self.mask = mask
        self.now = now
    }

    /// Siblings are drawn in an explicit sort (`s`), not in creation order.
    var isSorted: Bool { view.sort != .creation }

    func node(_ i: Int) -> TreeModel.Node { tree.nodes[i] }

    /// A `map` adapter whose single child is drawn in its row.
    package func isFoldingMap(_ i: Int) -> Bool {
        view.foldMaps && tree.nodes[i].foldsIntoChild
    }

    /// A node drawn inside its adapter's row, not on a row of its own.
    package func isFolded(_ i: Int) -> Bool {
        let p = Int(tree.nodes[i].parent)
        return p >= 0 && tree.contains(p) && isFoldingMap(p)
    }

    /// The node whose name and children `row` shows (the node it is named by unless that is
    /// a folding map).
    package func content(_ row: RowIndex) -> NodeIndex {
        NodeIndex(content(row.rawValue))
    }

    /// `content` on raw ids, for the walks here (rows and nodes share ids).
    func content(_ i: Int) -> Int {
        var c = i
        var guardSteps = 0
        while isFoldingMap(c) && guardSteps < 10_000 {
            c = Int(tree.nodes[c].children[0])
            guardSteps += 1
        }
        return c
    }

    /// The row a node's row hangs under (`RowIndex.none`: a root row).
    package func parent(_ i: RowIndex) -> RowIndex {
        var p = Int(tree.nodes[i.rawValue].parent)
        while p >= 0 && tree.contains(p) && isFolded(p) { p = Int(tree.nodes[p].parent) }
        return p >= 0 && tree.contains(p) ? RowIndex(p) : .none
    }

    /// A root drawn as a row: passes the filter and holds no restart's attempts.
    func rootShown(_ r: Int) -> Bool { passes(r) }

    /// Passes the filter and is no node holding restarts' attempts (drawn in other rows).
    func passes(_ i: Int) -> Bool {
        if !tree.hiddenRoots.isEmpty && tree.hiddenRoots.contains(i) { return false }
        guard let mask else { return true }
        return mask[i]
    }

    /// `passes` for a row.
    func passes(_ i: RowIndex) -> Bool { passes(i.rawValue) }

    /// Whether the row's children are shown.
    package func isExpanded(_ i: RowIndex) -> Bool { mask != nil || view.isExpanded(i) }

    /// Whether the row has any child row (regardless of collapsing).
    package func hasChildren(_ i: RowIndex) -> Bool {
        for c in tree.nodes[content(i.rawValue)].children where tree.contains(Int(c)) && passes(Int(c)) {
            return true
        }
        return false
    }

    func firstChild(_ i: RowIndex) -> RowIndex? {
        guard isExpanded(i) else { return nil }
        if isSorted { return children(of: content(i.rawValue)).first(where: passes).map { RowIndex($0) } }
        for c in tree.nodes[content(i.rawValue)].children where tree.contains(Int(c)) && passes(Int(c)) {
            return RowIndex(Int(c))
        }
        return nil
    }

    func lastChild(_ i: RowIndex) -> RowIndex? {
        guard isExpanded(i) else { return nil }
        if isSorted { return children(of: content(i.rawValue)).last(where: passes).map { RowIndex($0) } }
        for c in tree.nodes[content(i.rawValue)].children.reversed() where tree.contains(Int(c)) && passes(Int(c)) {
            return RowIndex(Int(c))
        }
        return nil
    }

    /// The next row at the same level, if any.
    package func nextSibling(_ i: RowIndex) -> RowIndex? {
        if isSorted { return sortedSibling(i.rawValue, step: 1).map { RowIndex($0) } }
        let p = Int(tree.nodes[i.rawValue].parent)
        let start = Int(tree.nodes[i.rawValue].index) + 1
        if p >= 0 {
            let kids = tree.nodes[p].children
            var k = start
            while k < kids.count {
                let c = Int(kids[k])
                if tree.contains(c) && passes(c) { return RowIndex(c) }
                k += 1
            }
            return nil
        }
        let slots = tree.rootSlots
        var k = start
        while k < slots.count {
            let c = Int(slots[k])
            if tree.isRootSlot(c) && Int(tree.nodes[c].index) == k && rootShown(c) { return RowIndex(c) }
            k += 1
        }
        return nil
    }

    func prevSibling(_ i: RowIndex) -> RowIndex? {
        if isSorted { return sortedSibling(i.rawValue, step: -1).map { RowIndex($0) } }
        let p = Int(tree.nodes[i.rawValue].parent)
        var k = Int(tree.nodes[i.rawValue].index) - 1
        if p >= 0 {
            let kids = tree.nodes[p].children
            while k >= 0 {
                let c = Int(kids[k])
                if tree.contains(c) && passes(c) { return RowIndex(c) }
                k -= 1
            }
            return nil
        }
        let slots = tree.rootSlots
        while k >= 0 {
            let c = Int(slots[k])
            if tree.isRootSlot(c) && Int(tree.nodes[c].index) == k && rootShown(c) { return RowIndex(c) }
            k -= 1
        }
        return nil
    }

    /// The first row of the tree.
    package func first() -> RowIndex? {
        if isSorted { return rootOrder().first(where: rootShown).map { RowIndex($0) } }
        var found: RowIndex?
        tree.forEachRoot { r in
            if rootShown(r) {
                found = RowIndex(r)
                return false
            }
            return true
        }
        return found
    }

    /// The last row of the tree.
    package func last() -> RowIndex? {
        var lastRoot: Int?
        if isSorted {
            lastRoot = rootOrder().last(where: rootShown)
        } else {
            tree.forEachRoot { r in
                if rootShown(r) { lastRoot = r }
                return true
            }
        }
        guard let r = lastRoot else { return nil }
        return lastDescendant(RowIndex(r))
    }

    func lastDescendant(_ i: RowIndex) -> RowIndex {
        var x = i
        while let c = lastChild(x) { x = c }
        return x
    }

    /// The row after `i` (preorder), if any.
    package func next(_ i: RowIndex) -> RowIndex? {
        if let c = firstChild(i) { return c }
        var x = i
        while true {
            if let s = nextSibling(x) { return s }
            x = parent(x)
            if x == .none { return nil }
        }
    }

    /// The row before `i`, if any.
    package func prev(_ i: RowIndex) -> RowIndex? {
        if let s = prevSibling(i) { return lastDescendant(s) }
        let p = parent(i)
        return p != .none ? p : nil
    }

    /// Whether `i` has a row now (exists, not folded, passes the filter, ancestors expanded).
    package func isVisible(_ i: RowIndex) -> Bool {
        guard tree.contains(i.rawValue), !isFolded(i.rawValue), passes(i) else { return false }
        var p = parent(i)
        while p != .none {
            if !isExpanded(p) || !passes(p) { return false }
            p = parent(p)
        }
        return true
    }

    /// Row ancestors of `i`, nearest first.
    func ancestors(_ i: RowIndex) -> [RowIndex] {
        var out: [RowIndex] = []
        var p = parent(i)
        while p != .none {
            out.append(p)
            p = parent(p)
        }
        return out
    }

    /// Whether row `a` comes before row `b` (both visible).
    package func precedes(_ a: RowIndex, _ b: RowIndex) -> Bool {
        if a == b { return false }
        let pa = [a] + ancestors(a)
        let pb = [b] + ancestors(b)
        // Walk from the roots down to where the paths part.
        var ia = pa.count - 1
        var ib = pb.count - 1
        while ia >= 0 && ib >= 0 && pa[ia] == pb[ib] {
            ia -= 1
            ib -= 1
        }
        if ia < 0 { return true } // a is an ancestor of b
        if ib < 0 { return false } // b is an ancestor of a
        return siblingOrder(pa[ia]) < siblingOrder(pb[ib])
    }

    /// Order among siblings, valid for two rows with the same row parent.
    func siblingOrder(_ i: RowIndex) -> Int {
        isSorted ? order.position(i.rawValue, in: self) : Int(tree.nodes[i.rawValue].index)
    }
}

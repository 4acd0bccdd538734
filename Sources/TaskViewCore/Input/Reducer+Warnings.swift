import TaskGraph

extension Reducer {
    /// `W`: selects the next node with a warning in row order (folded branches included),
    /// wrapping to the first after the last; says `no warnings` when there is none.
    static func nextWarning(_ model: inout DashboardModel) {
        let d = model.displayTree()
        let warned = d.tree.warnings.keys.filter { d.tree.contains($0) }
        guard !warned.isEmpty else {
            model.view.message = "no warnings"
            return
        }
        model.view.follow = false
        let ranked = warned.map { (d.rowPath(d.row(of: NodeIndex($0)).rawValue), $0) }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
        let sel = model.view.selection
        var next = ranked[0].1
        if sel != .none, d.tree.contains(sel.rawValue) {
            let here = d.rowPath(sel.rawValue)
            if let after = ranked.first(where: { here.lexicographicallyPrecedes($0.0) }) { next = after.1 }
        }
        reveal(&model, NodeIndex(next))
    }
}

extension DisplayTree {
    /// Node `x`'s place in row order: its position among its siblings at each level, from its
    /// root down (compared lexicographically, as rows are ordered).
    func rowPath(_ x: Int) -> [Int] {
        var path: [Int] = []
        var x = x
        var steps = 0
        while x >= 0, tree.contains(x), steps <= tree.nodes.count {
            path.append(rawSiblings(x).1)
            x = Int(tree.nodes[x].parent)
            steps += 1
        }
        return path.reversed()
    }
}

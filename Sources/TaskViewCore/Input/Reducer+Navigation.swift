import TaskGraph

/// Moving through the tree and shaping it: the move keys, expanding and collapsing, folding
/// to a depth, sorting, following, failure and cancel jumps, and the mouse.
extension Reducer {
    /// Where a move key goes.
    enum Move: Sendable {
        case up, down, pageUp, pageDown, top, bottom
    }

    /// Moves the selection (`rows` is a page); stops following and leaves the output search.
    static func move(_ model: inout DashboardModel, _ move: Move, rows: Int) {
        model.view.follow = false
        model.view.detailOutputEnd = nil
        clearSearch(&model)
        let d = model.displayTree()
        var sel = model.view.selection
        guard sel != .none, d.isVisible(sel) else {
            model.view.selection = d.first() ?? RowIndex.none
            return
        }
        switch move {
        case .up: sel = d.prev(sel) ?? sel
        case .down: sel = d.next(sel) ?? sel
        case .pageUp:
            for _ in 0..<rows {
                guard let p = d.prev(sel) else { break }
                sel = p
            }
        case .pageDown:
            for _ in 0..<rows {
                guard let n = d.next(sel) else { break }
                sel = n
            }
        case .top: sel = d.first() ?? sel
        case .bottom: sel = d.last() ?? sel
        }
        model.view.selection = sel
    }

    /// `←`/`h`: collapses the selected row, or selects its parent.
    static func collapseOrParent(_ model: inout DashboardModel) {
        model.view.follow = false
        let d = model.displayTree()
        let sel = model.view.selection
        guard sel != .none else { return }
        if d.hasChildren(sel) && d.isExpanded(sel) && model.view.filter.isEmpty {
            model.view.setCollapsed(sel, true)
        } else {
            let p = d.parent(sel)
            if p != .none { model.view.selection = p }
        }
    }

    /// Expands or collapses the selected row.
    static func setSelectionCollapsed(_ model: inout DashboardModel, _ collapsed: Bool) {
        if model.view.selection != .none { model.view.setCollapsed(model.view.selection, collapsed) }
    }

    /// `s`: the next order of siblings.
    static func cycleSort(_ model: inout DashboardModel) {
        let all = ViewState.Sort.allCases
        model.view.sort = all[(all.firstIndex(of: model.view.sort)! + 1) % all.count]
        model.view.top = .none
    }

    /// `f`: follows the newest executing node, or stops.
    static func toggleFollow(_ model: inout DashboardModel) {
        model.view.follow.toggle()
        if model.view.follow { applyFollow(&model) }
    }

    /// When the selected row shows a `ref` node whose shared node is in the tree: selects the
    /// shared node's row (expanding its ancestors, clearing a filter that hides it) and
    /// returns true.
    static func jumpToShared(_ model: inout DashboardModel) -> Bool {
        let sel = model.view.selection
        guard sel != .none else { return false }
        let d = model.displayTree()
        let tree = d.tree
        let ref = d.content(sel)
        guard tree.contains(ref), tree[ref].kind == NodeKind.ref else { return false }
        var target = Int(tree[ref].refOf)
        guard tree.contains(target) else { return false }
        model.view.follow = false
        while d.isFolded(target) { target = Int(tree.nodes[target].parent) }
        select(&model, row: RowIndex(target), in: d)
        return true
    }

    /// FOLLOW: select the newest executing node, expanding its ancestors.
    package static func applyFollow(_ model: inout DashboardModel) {
        guard model.view.follow else { return }
        var tree = model.shown
        guard let newest = tree.newestExecuting() else { return }
        if model.frozen == nil { model.tree = tree } else { model.frozen = tree }
        var d = model.displayTree()
        var node = newest
        while d.isFolded(node) { node = Int(d.tree.nodes[node].parent) }
        let target = RowIndex(node)
        var p = d.parent(target)
        while p != .none {
            if !model.view.isExpanded(p) { model.view.setCollapsed(p, false) }
            p = d.parent(p)
        }
        model.view.selection = target
        d = model.displayTree()
        if !d.isVisible(target) { model.fixSelection() }
    }

    /// What the footer says when no node in `state` is left in that direction.
    package static func noMoreMessage(_ state: DisplayState) -> String {
        state == .failed ? "no more failures" : "no more cancelled nodes"
    }

    /// Selects the next / previous node in `state` (row order, folded branches included),
    /// expanding its folded ancestors; says `no more failures` when there is none.
    static func jump(_ model: inout DashboardModel, to state: DisplayState, forward: Bool) {
        model.view.follow = false
        let d = model.displayTree()
        let sel = model.view.selection
        let from = sel != .none && d.tree.contains(sel.node) ? (forward ? d.content(sel) : sel.node) : NodeIndex(-1)
        let found = forward ? d.nextNode(in: state, after: from) : d.prevNode(in: state, before: from)
        guard let found else {
            model.view.message = noMoreMessage(state)
            return
        }
        reveal(&model, found)
    }

    /// Selects row `target`, expanding its ancestors and clearing a filter that hides it.
    package static func reveal(_ model: inout DashboardModel, _ target: NodeIndex) {
        let d = model.displayTree()
        guard d.tree.contains(target) else { return }
        select(&model, row: d.row(of: target), in: d)
    }

    /// Selects row `target` of `d`: clears a filter that hides it, expands its ancestors.
    static func select(_ model: inout DashboardModel, row target: RowIndex, in d: DisplayTree) {
        var d = d
        if !model.view.filter.isEmpty && !d.passes(target) {
            model.view.filter = ""
            d = model.displayTree()
        }
        var p = d.parent(target)
        while p != .none {
            if !model.view.isExpanded(p) { model.view.setCollapsed(p, false) }
            p = d.parent(p)
        }
        model.view.selection = target
    }

    /// Folds the tree so that rows down to `depth` show (1: roots only): rows at that depth
    /// with children are collapsed, every row above it expanded.
    static func foldToDepth(_ model: inout DashboardModel, _ depth: Int) {
        guard depth >= 1 else { return }
        model.view.follow = false
        model.view.collapsed = []
        var open = model.view
        open.filter = ""
        let d = DisplayTree(tree: model.shown, view: open, mask: nil)
        var level: [RowIndex] = []
        var r = d.first()
        while let x = r {
            level.append(x)
            r = d.nextSibling(x)
        }
        for _ in 1..<depth {
            var next: [RowIndex] = []
            for x in level {
                var c = d.firstChild(x)
                while let y = c {
                    next.append(y)
                    c = d.nextSibling(y)
                }
            }
            if next.isEmpty { break }
            level = next
        }
        for x in level where d.hasChildren(x) { model.view.setCollapsed(x, true) }
        model.fixSelection()
        model.view.message = "Folded to depth \(depth)"
    }

    /// A mouse event: a click selects the row, a double click opens its detail pane, the
    /// wheel moves through the tree (or scrolls the pane under the pointer).
    static func mouse(_ model: inout DashboardModel, _ e: MouseEvent, rows: Int) -> [DashboardEffect] {
        switch e.kind {
        case .wheelUp, .wheelDown:
            if e.inDetail && model.view.detailOpen {
                scrollDetail(&model, up: e.kind == .wheelUp)
                return []
            }
            for _ in 0..<3 { _ = apply(&model, e.kind == .wheelUp ? .moveUp : .moveDown, rows: rows) }
        case .click, .doubleClick:
            guard e.row >= 0 else { return [] }
            let d = model.displayTree()
            guard var x = model.topRow(rows: max(rows, e.row + 1), in: d) else { return [] }
            for _ in 0..<e.row {
                guard let n = d.next(x) else { return [] }
                x = n
            }
            model.view.follow = false
            model.view.selection = x
            if e.kind == .doubleClick { return apply(&model, .openDetail, rows: rows) }
        }
        return []
    }
}

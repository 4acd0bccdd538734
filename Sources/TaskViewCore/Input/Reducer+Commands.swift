import TaskGraph

/// Cancelling and restarting nodes: `x`/`X` and `r`/`R`, asking first or not.
extension Reducer {
    /// `x` (ask first) or `X`: cancels the selected node, or says why it cannot be.
    static func cancel(_ model: inout DashboardModel, ask: Bool) -> [DashboardEffect] {
        let sel = model.view.selection
        guard sel != .none, model.tree.contains(sel.node) else { return [] }
        let preview = CancelPreview(tree: model.tree, display: model.displayTree(), node: sel.rawValue)
        guard preview.cancellable else {
            model.view.message = preview.readOnly ?? "\(preview.name) has finished: nothing to cancel"
            return []
        }
        if !ask { return cancel(&model, sel) }
        model.view.mode = .confirmCancel(row: sel)
        return []
    }

    /// `r` (ask first) or `R`: restarts the selected node and what was skipped because of
    /// it, or says why it cannot be.
    static func restart(_ model: inout DashboardModel, ask: Bool) -> [DashboardEffect] {
        let sel = model.view.selection
        guard sel != .none, model.tree.contains(sel.node) else { return [] }
        guard let k = restartable(&model, sel) else { return [] }
        if !ask { return [.restart(row: sel)] }
        model.view.mode = .confirmRestart(row: sel, dependents: k)
        return []
    }

    /// How many skipped nodes would run again with row `row` (nil, with the footer saying
    /// why, when it cannot be restarted).
    static func restartable(_ model: inout DashboardModel, _ row: RowIndex) -> Int? {
        let tree = model.tree
        let shown = tree[tree.shownNode(row)]
        let name = tree[model.displayTree().content(row)].name
        let waiting =
            shown.kind == NodeKind.after && shown.children.count == 1 && tree.contains(Int(shown.children[0]))
            && tree.nodes[Int(shown.children[0])].state == .notExecuted
        if shown.display == .notExecuted || (shown.state == .executing && waiting) {
            model.view.message = "\(name) has not run yet: nothing to restart"
            return nil
        }
        if shown.state == .executing {
            model.view.message = "\(name) is running: it cannot be restarted (cancel it first with x)"
            return nil
        }
        guard model.canRestart else {
            model.view.message = "cannot restart: \(name) was not made restartable"
            return nil
        }
        return tree.restartPlan(row.rawValue).others
    }

    /// Cancels the node `row` is named by (a folded `map` row: the adapter, and so its
    /// child), saying which node the row shows. The node may have settled while the prompt
    /// waited: then nothing is cancelled, and the message says so.
    static func cancel(_ model: inout DashboardModel, _ row: RowIndex) -> [DashboardEffect] {
        let preview = CancelPreview(tree: model.tree, display: model.displayTree(), node: row.rawValue)
        guard preview.cancellable else {
            model.view.message = preview.readOnly ?? preview.finishedMessage
            return []
        }
        model.view.message = "Cancelled \(preview.name)"
        return [.cancel(node: row.node, source: ViewerCancelSource.keyboard)]
    }
}

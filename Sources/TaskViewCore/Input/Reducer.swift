import TaskGraph

/// The pure update step: (model, key) -> model + effects. Keys reach actions only through
/// `KeyTable`; nothing here talks to a graph or a terminal.
public enum Reducer {
    /// Applies a key. `rows` is the height of the tree area (for PgUp/PgDn).
    public static func reduce(_ model: inout DashboardModel, key: Key, rows: Int) -> [DashboardEffect] {
        model.refreshDerived()
        switch model.view.mode {
        case .confirmCancel(let node):
            model.view.mode = .normal
            if key == .ctrlC {
                model.view.quitRequested = true
                return []
            }
            if key == .char("y") || key == .char("Y") {
                return cancel(&model, node)
            }
            model.view.message = "Not cancelled"
            return []
        case .confirmRestart(let node, _):
            model.view.mode = .normal
            if key == .ctrlC {
                model.view.quitRequested = true
                return []
            }
            if key == .char("y") || key == .char("Y") { return [.restart(node: node)] }
            model.view.message = "Not restarted"
            return []
        case .filterInput:
            editFilter(&model, key)
            return []
        case .searchInput:
            editSearch(&model, key)
            return []
        case .help:
            if key == .ctrlC || key == .char("q") { model.view.quitRequested = true }
            model.view.mode = .normal
            return []
        case .foldPrefix, .seekInput, .findInput:
            return reducePrompt(&model, key: key, rows: max(1, rows)) ?? []
        case .normal:
            break
        }
        if key == .resize { return [] }
        if case .mouse(let e) = key {
            model.view.message = nil
            return mouse(&model, e, rows: max(1, rows))
        }
        guard let action = KeyTable.action(for: key, replay: model.isReplay, context: model.keyContext) else {
            return []
        }
        model.view.message = nil
        return apply(&model, action, rows: max(1, rows))
    }

    /// Applies an action (what a key maps to).
    public static func apply(_ model: inout DashboardModel, _ action: Action, rows: Int) -> [DashboardEffect] {
        if let effects = applyComfort(&model, action, rows: rows) { return effects }
        switch action {
        case .moveUp, .moveDown, .pageUp, .pageDown, .moveTop, .moveBottom:
            model.view.follow = false
            model.view.detailOutputEnd = nil
            clearSearch(&model)
            move(&model, action, rows: rows)
        case .collapseOrParent:
            model.view.follow = false
            let d = model.displayTree()
            let sel = model.view.selection
            guard sel >= 0 else { return [] }
            if d.hasChildren(sel) && d.isExpanded(sel) && model.view.filter.isEmpty {
                model.view.setCollapsed(sel, true)
            } else {
                let p = d.parent(sel)
                if p >= 0 { model.view.selection = p }
            }
        case .expand, .expandOne:
            if model.view.selection >= 0 { model.view.setCollapsed(model.view.selection, false) }
        case .collapseOne:
            if model.view.selection >= 0 { model.view.setCollapsed(model.view.selection, true) }
        case .expandAll:
            model.view.collapsed = []
        case .openDetail:
            // A `ref` row is a link: Enter goes to the shared node it stands for.
            if jumpToShared(&model) { return [] }
            model.view.detailOpen = model.view.selection >= 0
            model.view.detailOutputEnd = nil
            clearSearch(&model)
        case .detailScrollUp, .detailScrollDown:
            scrollDetail(&model, up: action == .detailScrollUp)
        case .close:
            if model.view.detailOpen && !model.view.search.isEmpty {
                clearSearch(&model)
                model.view.detailOutputEnd = nil
            } else if model.view.detailOpen {
                model.view.detailOpen = false
                model.view.detailOutputEnd = nil
            } else if !model.view.filter.isEmpty {
                model.view.filter = ""
                model.fixSelection()
            }
        case .cancelAsk, .cancelNow:
            let sel = model.view.selection
            guard sel >= 0, model.tree.contains(sel) else { return [] }
            let preview = CancelPreview(tree: model.tree, display: model.displayTree(), node: sel)
            guard preview.cancellable else {
                model.view.message = preview.readOnly ?? "\(preview.name) has finished: nothing to cancel"
                return []
            }
            if action == .cancelNow { return cancel(&model, sel) }
            model.view.mode = .confirmCancel(node: sel)
        case .restartAsk, .restartNow:
            let sel = model.view.selection
            guard sel >= 0, model.tree.contains(sel) else { return [] }
            guard let k = restartable(&model, sel) else { return [] }
            if action == .restartNow { return [.restart(node: sel)] }
            model.view.mode = .confirmRestart(node: sel, dependents: k)
        case .pause:
            model.view.paused.toggle()
            model.frozen = model.view.paused ? model.tree : nil
            model.pausedClock = model.view.paused ? model.clockNow : nil
            model.fixSelection()
        case .filter:
            model.view.mode = .filterInput
        case .searchOutput:
            clearSearch(&model)
            model.view.mode = .searchInput
        case .searchNext, .searchPrevious:
            stepSearch(&model, forward: action == .searchNext)
        case .openOutput:
            return openOutput(&model)
        case .plainMode:
            return [.plainMode]
        case .follow:
            model.view.follow.toggle()
            if model.view.follow { applyFollow(&model) }
        case .help:
            model.view.mode = .help
        case .quit:
            model.view.quitRequested = true
        case .replayReadOnly:
            model.view.message = "A replay is read-only: nothing can be cancelled or restarted"
        case .replayPlayPause, .replayStepForward, .replayStepBack, .replaySeekBack,
            .replaySeekForward, .replayJump, .replaySlower, .replayFaster:
            return [.replay(action)]
        default:
            break
        }
        return []
    }

    /// How many skipped nodes would run again with row `row` (nil, with the footer saying
    /// why, when it cannot be restarted).
    static func restartable(_ model: inout DashboardModel, _ row: Int) -> Int? {
        let tree = model.tree
        let shown = tree.nodes[tree.shownNode(row)]
        let name = tree.nodes[model.displayTree().content(row)].name
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
        return tree.restartPlan(row).others
    }

    static func cancel(_ model: inout DashboardModel, _ node: Int) -> [DashboardEffect] {
        let name = model.tree.nodes[model.displayTree().content(node)].name
        model.view.message = "Cancelled \(name)"
        return [.cancel(node: node, source: ViewerCancelSource.keyboard)]
    }

    /// Lines one `[` or `]` scrolls the detail pane's output.
    public static let detailScrollStep = 5

    /// Scrolls the open detail pane's output by `detailScrollStep` lines; scrolling down to
    /// the newest line follows it again.
    static func scrollDetail(_ model: inout DashboardModel, up: Bool) {
        guard model.view.detailOpen, model.view.selection >= 0 else { return }
        let d = model.displayTree()
        guard let ring = model.shown.outputs[d.content(model.view.selection)] else { return }
        let total = ring.total
        let oldest = total - ring.count
        let end = model.view.detailOutputEnd ?? total
        if up {
            model.view.detailOutputEnd = max(min(total, oldest + 1), end - detailScrollStep)
        } else {
            let next = end + detailScrollStep
            model.view.detailOutputEnd = next >= total ? nil : next
        }
    }

    static func move(_ model: inout DashboardModel, _ action: Action, rows: Int) {
        let d = model.displayTree()
        var sel = model.view.selection
        guard sel >= 0, d.isVisible(sel) else {
            model.view.selection = d.first() ?? -1
            return
        }
        switch action {
        case .moveUp: sel = d.prev(sel) ?? sel
        case .moveDown: sel = d.next(sel) ?? sel
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
        case .moveTop: sel = d.first() ?? sel
        case .moveBottom: sel = d.last() ?? sel
        default: break
        }
        model.view.selection = sel
    }

    static func editFilter(_ model: inout DashboardModel, _ key: Key) {
        switch key {
        case .escape:
            model.view.filter = ""
            model.view.mode = .normal
        case .enter:
            model.view.mode = .normal
        case .backspace:
            if !model.view.filter.isEmpty { model.view.filter.removeLast() }
        case .ctrlC:
            model.view.quitRequested = true
        case .tab:
            model.view.filterWide.toggle()
        case .char(let c):
            let clean = Sanitizer.clean(String(c))
            if model.view.filter.count < 200 { model.view.filter += clean }
        default:
            return
        }
        model.fixSelection()
    }

    /// When the selected row shows a `ref` node whose shared node is in the tree: selects the
    /// shared node's row (expanding its ancestors, clearing a filter that hides it) and
    /// returns true.
    static func jumpToShared(_ model: inout DashboardModel) -> Bool {
        let sel = model.view.selection
        guard sel >= 0 else { return false }
        let d = model.displayTree()
        let tree = d.tree
        let ref = d.content(sel)
        guard tree.contains(ref), tree[ref].kind == NodeKind.ref else { return false }
        var target = Int(tree[ref].refOf)
        guard tree.contains(target) else { return false }
        model.view.follow = false
        while d.isFolded(target) { target = Int(tree.nodes[target].parent) }
        select(&model, row: target, in: d)
        return true
    }

    /// FOLLOW: select the newest executing node, expanding its ancestors.
    public static func applyFollow(_ model: inout DashboardModel) {
        guard model.view.follow else { return }
        var tree = model.shown
        guard let newest = tree.newestExecuting() else { return }
        if model.frozen == nil { model.tree = tree } else { model.frozen = tree }
        var d = model.displayTree()
        var target = newest
        while d.isFolded(target) { target = Int(d.tree.nodes[target].parent) }
        var p = d.parent(target)
        while p >= 0 {
            if !model.view.isExpanded(p) { model.view.setCollapsed(p, false) }
            p = d.parent(p)
        }
        model.view.selection = target
        d = model.displayTree()
        if !d.isVisible(target) { model.fixSelection() }
    }
}

/// The keys (docs/taskview.md) for failure and cancel jumps, folding to a depth, sorting, the
/// replay prompts, and the mouse.
extension Reducer {
    /// Keys while `z`, `t` or `F` waits for more; nil when the mode is none of these.
    static func reducePrompt(_ model: inout DashboardModel, key: Key, rows: Int) -> [DashboardEffect]? {
        switch model.view.mode {
        case .foldPrefix:
            model.view.mode = .normal
            if case .char(let c) = key, let d = c.wholeNumberValue, d >= 1 {
                return apply(&model, .foldDepth(d), rows: rows)
            }
            if key == .ctrlC { model.view.quitRequested = true }
            return []
        case .seekInput, .findInput:
            return editPrompt(&model, key)
        default:
            return nil
        }
    }

    static func editPrompt(_ model: inout DashboardModel, _ key: Key) -> [DashboardEffect] {
        let seeking = model.view.mode == .seekInput
        switch key {
        case .escape:
            model.view.mode = .normal
        case .ctrlC:
            model.view.mode = .normal
            model.view.quitRequested = true
        case .backspace:
            if !model.view.prompt.isEmpty { model.view.prompt.removeLast() }
        case .char(let c):
            if model.view.prompt.count < 200 { model.view.prompt += Sanitizer.clean(String(c)) }
        case .enter:
            model.view.mode = .normal
            let text = model.view.prompt
            if text.isEmpty { return [] }
            if !seeking { return [.replay(.replayFind(text))] }
            guard let target = SeekTarget(text) else {
                model.view.message = "Not a time: \(text) (try 1:30, 90s or 45%)"
                return []
            }
            return [.replay(.replaySeek(target))]
        default:
            break
        }
        return []
    }

    /// The comfort actions; nil for the others.
    static func applyComfort(_ model: inout DashboardModel, _ action: Action, rows: Int) -> [DashboardEffect]? {
        switch action {
        case .nextFailed, .prevFailed, .nextCancelled, .prevCancelled:
            if model.isReplay { return [.replay(action)] }
            let state: DisplayState = action == .nextFailed || action == .prevFailed ? .failed : .cancelled
            jump(&model, to: state, forward: action == .nextFailed || action == .nextCancelled)
        case .foldDepth(let depth):
            foldToDepth(&model, depth)
        case .foldPrefix:
            model.view.mode = .foldPrefix
        case .cycleSort:
            let all = ViewState.Sort.allCases
            model.view.sort = all[(all.firstIndex(of: model.view.sort)! + 1) % all.count]
            model.view.top = -1
        case .replayPrevMarker, .replayNextMarker:
            if model.view.detailOpen {
                scrollDetail(&model, up: action == .replayPrevMarker)
                return []
            }
            return [.replay(action)]
        case .replaySeekPrompt:
            model.view.mode = .seekInput
            model.view.prompt = ""
        case .replayFindPrompt:
            model.view.mode = .findInput
            model.view.prompt = ""
        case .replaySeek, .replayFind:
            return [.replay(action)]
        default:
            return nil
        }
        return []
    }

    /// What the footer says when no node in `state` is left in that direction.
    public static func noMoreMessage(_ state: DisplayState) -> String {
        state == .failed ? "no more failures" : "no more cancelled nodes"
    }

    /// Selects the next / previous node in `state` (row order, folded branches included),
    /// expanding its folded ancestors; says `no more failures` when there is none.
    static func jump(_ model: inout DashboardModel, to state: DisplayState, forward: Bool) {
        model.view.follow = false
        let d = model.displayTree()
        let sel = model.view.selection
        let from = sel >= 0 && d.tree.contains(sel) ? (forward ? d.content(sel) : sel) : -1
        let found = forward ? d.nextNode(in: state, after: from) : d.prevNode(in: state, before: from)
        guard let found else {
            model.view.message = noMoreMessage(state)
            return
        }
        reveal(&model, d.row(of: found))
    }

    /// Selects row `target`, expanding its ancestors and clearing a filter that hides it.
    public static func reveal(_ model: inout DashboardModel, _ target: Int) {
        let d = model.displayTree()
        guard d.tree.contains(target) else { return }
        select(&model, row: d.row(of: target), in: d)
    }

    /// Selects row `target` of `d`: clears a filter that hides it, expands its ancestors.
    static func select(_ model: inout DashboardModel, row target: Int, in d: DisplayTree) {
        var d = d
        if !model.view.filter.isEmpty && !d.passes(target) {
            model.view.filter = ""
            d = model.displayTree()
        }
        var p = d.parent(target)
        while p >= 0 {
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
        var level: [Int] = []
        var r = d.first()
        while let x = r {
            level.append(x)
            r = d.nextSibling(x)
        }
        for _ in 1..<depth {
            var next: [Int] = []
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

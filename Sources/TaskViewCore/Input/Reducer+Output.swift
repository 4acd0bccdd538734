/// The detail pane's output search (`/` typed query, `n` / `N` through the matches) and `o`.
extension Reducer {
    /// Lines shown below a match the pane scrolled to (when there are that many).
    static let searchContextLines = 2

    static func clearSearch(_ model: inout DashboardModel) {
        model.view.search = ""
        model.view.searchLine = nil
    }

    static func editSearch(_ model: inout DashboardModel, _ key: Key) {
        switch key {
        case .escape:
            clearSearch(&model)
            model.view.detailOutputEnd = nil
            model.view.mode = .normal
            return
        case .enter:
            model.view.mode = .normal
            return
        case .backspace:
            if !model.view.search.isEmpty { model.view.search.removeLast() }
        case .ctrlC:
            model.view.quitRequested = true
            return
        case .char(let c):
            let clean = Sanitizer.clean(String(c))
            if model.view.search.count < 200 { model.view.search += clean }
        default:
            return
        }
        // Searching as one types: the first match, or the newest lines when there is none.
        model.view.searchLine = nil
        model.view.detailOutputEnd = nil
        guard let ring = model.detailOutput, let first = OutputSearch.matches(ring, model.view.search).first
        else { return }
        show(&model, line: first, ring: ring)
    }

    /// `n` / `N`: the next / previous match, wrapping around.
    static func stepSearch(_ model: inout DashboardModel, forward: Bool) {
        guard let ring = model.detailOutput else { return }
        let matches = OutputSearch.matches(ring, model.view.search)
        guard !matches.isEmpty else {
            model.view.message = "no match for \"" + model.view.search + "\""
            return
        }
        let target: Int
        if let current = model.view.searchLine {
            if forward {
                target = matches.first { $0 > current } ?? matches[0]
            } else {
                target = matches.last { $0 < current } ?? matches[matches.count - 1]
            }
        } else {
            target = forward ? matches[0] : matches[matches.count - 1]
        }
        show(&model, line: target, ring: ring)
    }

    /// `o`: the selected command's whole output, or why not.
    static func openOutput(_ model: inout DashboardModel) -> [DashboardEffect] {
        let sel = model.view.selection
        guard sel != .none, model.shown.contains(sel.node) else { return [] }
        let c = model.displayTree().content(sel).rawValue
        guard model.shown.outputs[c] != nil || model.shown.commands[c] != nil || model.shown.logs[c] != nil else {
            model.view.message = model.shown.nodes[c].name + " is not a command: no output to open"
            return []
        }
        guard model.shown.outputs[c] != nil || model.shown.logs[c] != nil else {
            model.view.message = model.shown.nodes[c].name + " has printed nothing"
            return []
        }
        return [.openOutput(node: NodeIndex(c))]
    }

    /// Makes `line` the current match and scrolls the pane so it shows.
    static func show(_ model: inout DashboardModel, line: Int, ring: OutputRing) {
        model.view.searchLine = line
        let end = line + 1 + searchContextLines
        model.view.detailOutputEnd = end >= ring.total ? nil : end
    }
}

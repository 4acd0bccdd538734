/// The detail pane: opening and closing it, scrolling its output.
extension Reducer {
    /// Enter: opens the selected row's detail pane (on a `ref` row, goes to the shared node).
    static func openDetail(_ model: inout DashboardModel) {
        // A `ref` row is a link: Enter goes to the shared node it stands for.
        if jumpToShared(&model) { return }
        model.view.detailOpen = model.view.selection != .none
        model.view.detailOutputEnd = nil
        clearSearch(&model)
    }

    /// Esc: leaves the output search, else closes the pane, else clears the filter.
    static func close(_ model: inout DashboardModel) {
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
    }

    /// Lines one `[` or `]` scrolls the detail pane's output.
    package static let detailScrollStep = 5

    /// Scrolls the open detail pane's output by `detailScrollStep` lines; scrolling down to
    /// the newest line follows it again.
    static func scrollDetail(_ model: inout DashboardModel, up: Bool) {
        guard model.view.detailOpen, model.view.selection != .none else { return }
        let d = model.displayTree()
        guard
            let ring = model.shown.detailStream(d.content(model.view.selection).rawValue, filter: model.view.logFilter)
        else { return }
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

    /// `L`: the next minimum level of the log records the detail pane shows; the pane's
    /// window and search start again from the newest lines.
    static func cycleLogLevel(_ model: inout DashboardModel) {
        model.view.logFilter = model.view.logFilter.next
        model.view.detailOutputEnd = nil
        model.view.searchLine = nil
        model.view.message = "Log: " + model.view.logFilter.label
    }
}

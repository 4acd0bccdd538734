extension Reducer {
    /// `d`: shows or hides the Δ column; says so when there is nothing to compare with.
    static func toggleDelta(_ model: inout DashboardModel) {
        guard model.baseline != nil else {
            model.view.showDelta = false
            model.view.message = "No baseline: no earlier run of this scenario (--baseline LOG names one)"
            return
        }
        model.view.showDelta.toggle()
    }
}

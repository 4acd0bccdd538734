/// What one scenario may ask for, counted before anything runs: `repeat` is already
/// expanded, and each `retry` multiplies everything under it by its attempts (nested retries
/// multiply). A scenario over budget is refused (exit 2) naming the node where the count
/// went over, so a file cannot ask for hours of work or fill the disk when recorded.
package enum ScenarioBudget {
    /// Most nodes, counting every retry attempt's copy of its subtree.
    package static let maxNodes = 1_000_000
    /// Most runs of `work` leaves, counting every retry attempt.
    package static let maxAttempts = 1_000_000
    /// Most progress reports of `work` leaves (`steps` per run), counting every attempt.
    package static let maxProgressEvents = 10_000_000

    struct Totals {
        var nodes = 0, attempts = 0, progress = 0
    }

    /// Throws when `scenario` exceeds a budget; `file` names it in the message.
    package static func check(_ scenario: Scenario, file: String) throws(ScenarioError) {
        var totals = Totals()
        try visit(scenario.root, times: 1, path: "$", totals: &totals, file: file)
    }

    /// Adds `node`, run `times` times (the product of the enclosing retries' attempts).
    /// Recursion depth is bounded by the JSON nesting limit.
    static func visit(
        _ node: ScenarioNode, times: Int, path: String, totals: inout Totals,
        file: String
    ) throws(ScenarioError) {
        func over(_ what: String, _ limit: Int) -> ScenarioError {
            ScenarioError(
                file: file, position: nil,
                message:
                    "\(path) (\(node.kind.rawValue) \"\(node.name)\"): the scenario asks for more than \(limit.formatted3) \(what), over taskview's budget"
            )
        }
        totals.nodes += times
        if totals.nodes > maxNodes { throw over("nodes (retry attempts included)", maxNodes) }
        if node.kind == .work {
            totals.attempts += times
            if totals.attempts > maxAttempts { throw over("work attempts", maxAttempts) }
            let (events, overflow) = node.steps.multipliedReportingOverflow(by: times)
            totals.progress += overflow ? Int.max / 2 : events
            if overflow || totals.progress > maxProgressEvents { throw over("progress events", maxProgressEvents) }
        }
        var inner = times
        if node.kind == .retry {
            let (t, overflow) = times.multipliedReportingOverflow(by: max(1, node.attempts))
            inner = overflow ? maxNodes + 1 : min(t, maxNodes + 1)
        }
        for (i, child) in node.children.enumerated() {
            try visit(child, times: inner, path: "\(path).children[\(i)]", totals: &totals, file: file)
        }
    }
}

extension Int {
    /// `1,000,000`.
    var formatted3: String {
        let digits = Array(String(self))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}

import TaskViewCore
import TaskViewIO

/// The short summary printed to the normal screen after the dashboard closes: outcome,
/// counts, duration, failed nodes. The log path is named once, by the command's
/// `Log written to PATH` notice on stderr right after these lines.
package enum ExitSummary {
    /// At most ~one screen of lines.
    package static func lines(model: DashboardModel) -> [String] {
        let summary = HeadlessSummary(tree: model.tree)
        var out: [String] = []
        var outcome = model.outcome.map { "finished: " + $0.word } ?? "not finished"
        if model.outcome != nil, let detail = model.outcomeDetail { outcome += " (" + Sanitizer.clean(detail) + ")" }
        out.append(
            "taskview: " + Sanitizer.clean(model.title) + " " + outcome + " after "
                + Format.seconds3(summary.duration(root: model.rootID)) + "s")
        out.append(summary.countsLine)
        var failed: [Int] = []
        let tree = model.tree
        for i in tree.nodes.ids where tree.nodes[i].exists && tree.nodes[i].display == .failed {
            // After a restart: what the rows show now (newest attempts, groups judged again).
            guard tree.attempts.isEmpty || (tree.isCurrent(i) && (tree.rejudged[i] ?? .failed) == .failed) else {
                continue
            }
            failed.append(i)
            if failed.count > 10 { break }
        }
        if !failed.isEmpty {
            out.append("Failed:")
            for i in failed.prefix(10) { out.append("  " + summary.describe(i)) }
            if failed.count > 10 { out.append("  ...") }
        }
        if model.outcome != nil {
            out += RunReport(tree: model.tree, flaky: model.history?.flaky).lines
            out += model.baseline?.reportLines(model.tree) ?? []
        }
        return out
    }
}

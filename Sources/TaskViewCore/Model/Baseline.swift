import TaskGraph

/// The run the dashboard compares with (docs/taskview.md, "Comparing with another run"):
/// the previous run of the same scenario, or `--baseline LOG`. Rows are matched by
/// `NodePath`; what counts as a change is `RunComparison`'s.
package struct Baseline: Sendable {
    package var record: RunRecord
    /// Least change shown, in percent (`RunComparison.defaultMinChange`).
    package var minChange: Double
    /// How the detail pane names it: `previous run`, or the log's file name.
    package var name: String
    /// Row paths found so far (copies share it; it knows which tree structure it holds).
    private let paths = NodePathCache()

    package init(record: RunRecord, name: String, minChange: Double = RunComparison.defaultMinChange) {
        self.record = record
        self.name = name
        self.minChange = minChange
    }

    /// What the Δ column shows for a row and how: `+3.2s` / `-0.8s` for a settled row that
    /// changed enough (slower in the warning colour, faster in the success colour), `1.4×
    /// usual` for a running one, `new` for one the baseline lacks; nil: blank (too small a
    /// change, nothing to compare, or a tree larger than `RunHistory.maxNodes`).
    package func cell(_ row: Int, in tree: TreeModel, now: Double, ascii: Bool) -> (text: String, role: StyleRole)? {
        guard tree.contains(row), tree.liveCount <= RunHistory.maxNodes else { return nil }
        guard let base = record[paths.path(row, in: tree)] else { return ("new", .accent) }
        let n = tree[tree.newestAttempt(row)]
        guard let b = base.seconds, !n.startedAt.isNaN else { return nil }
        if !n.endedAt.isNaN {
            let s = n.endedAt - n.startedAt
            guard RunComparison.isSignificant(base: b, new: s, minChange: minChange) else { return nil }
            // Yellow (the executing colour) is the warning colour.
            return (RunComparison.signed(s - b, decimals: 1) + "s", s > b ? .executing : .succeeded)
        }
        // Running: from when its work started (nothing while a command waits for a slot).
        guard b > 0, let start = tree.workStart(tree.newestAttempt(row)) else { return nil }
        let ratio = max(0, now - start) / b
        return (Format.fixed(ratio, decimals: 1) + (ascii ? "x" : "×") + " usual", ratio > 1 ? .executing : .dim)
    }

    /// The detail pane's line: both runs' times and outcomes (`Baseline (previous run):
    /// 2.000s succeeded; now 5.000s succeeded, +3.000s`).
    package func detailLine(_ row: Int, in tree: TreeModel) -> String? {
        guard tree.contains(row), tree.liveCount <= RunHistory.maxNodes else { return nil }
        let head = "Baseline (" + Sanitizer.clean(name) + "): "
        guard let base = record[paths.path(row, in: tree)] else { return head + "not in that run" }
        let n = tree[tree.newestAttempt(row)]
        var line = head + (base.seconds.map { Format.seconds3($0) + "s " } ?? "") + base.outcome + "; now "
        let seconds = n.startedAt.isNaN || n.endedAt.isNaN ? nil : n.endedAt - n.startedAt
        line += (seconds.map { Format.seconds3($0) + "s " } ?? "") + n.display.reportKey
        if let s = seconds, let b = base.seconds { line += ", " + RunComparison.signed(s - b, decimals: 3) + "s" }
        return line
    }
}

extension Baseline {
    /// The end-of-run report's block comparing `tree`'s run with this one: "Compared with
    /// the previous run" (or with the named log).
    package func reportLines(_ tree: TreeModel) -> [String] {
        let against = name == Self.previousRun ? "the previous run" : Sanitizer.clean(name)
        return RunComparison(base: record, new: RunRecord(tree: tree), minChange: minChange).reportLines(
            against: against)
    }

    /// The name of a baseline from the run history.
    package static let previousRun = "previous run"
}

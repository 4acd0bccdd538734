import TaskGraph

/// The report's "Flaky" block (docs/taskview.md, "Flaky nodes"): the nodes that failed and
/// succeeded with the same inputs, in this run (a restart or a `retry` that passed after a
/// failure) or in the last `FlakyHistory.window` runs, each with the end of its first
/// failure's output, so the failure is not lost under the final pass.
extension RunReport {
    /// A flaky node.
    package struct Flaky: Sendable, Equatable {
        /// The row's node (its first attempt).
        package var id: Int
        /// Its `NodePath`.
        package var path: String
        package var name: String
        /// Failures and runs (or attempts, for `sameRun`) with the same inputs.
        package var failures: Int
        package var runs: Int
        /// It failed and then succeeded in this run (restart or retry); else the history
        /// says it is flaky.
        package var sameRun: Bool
        /// The last lines (at most `RunReport.stderrLines`, both streams) of this run's first
        /// failed attempt; empty when it did not fail in this run.
        package var firstFailureOutput: [String]
    }

    /// The report of `tree` with the flaky nodes `flaky` (the run's history) finds too.
    package init(tree: TreeModel, flaky: FlakyHistory?) {
        self.init(tree: tree)
        guard let flaky, !flaky.isEmpty else { return }
        self.flaky = Self.flaky(in: tree, history: flaky, sameRun: self.flaky)
    }

    /// The rows that failed and then succeeded in this run, in row order: a restarted row
    /// whose newest attempt succeeded after a failed one (innermost: not the groups that failed
    /// with it), and a `retry` whose last attempt succeeded after a failed one.
    static func flakyInRun(_ tree: TreeModel) -> [Flaky] {
        var found: [Int: (failures: Int, runs: Int, failed: Int)] = [:]
        for (row, later) in tree.attempts where tree.contains(row) && tree[row].counted {
            let all = ([row] + later).filter { tree.contains($0) }
            guard let newest = all.last, tree[newest].display == .succeeded else { continue }
            let failed = all.filter { tree[$0].display == .failed }
            guard let first = failed.first else { continue }
            found[row] = (failed.count, all.count, first)
        }
        for id in tree.nodes.ids where tree.contains(id) && tree[id].kind == NodeKind.retry && tree.isCurrent(id) {
            let kids = tree[id].children.map(Int.init).filter { tree.contains($0) }
            guard let last = kids.last, tree[last].display == .succeeded else { continue }
            let failed = kids.filter { tree[$0].display == .failed }
            guard let first = failed.first else { continue }
            found[id] = (failed.count, kids.count, first)
        }
        return found.keys.sorted().compactMap { row in
            // A step with needs is one row: its adapter's.
            let p = Int(tree[row].parent)
            if p >= 0, tree.contains(p), tree[p].foldsIntoChild, found[p] != nil { return nil }
            // A group that failed with its restarted child is not flaky itself.
            if !tree[row].foldsIntoChild, tree[row].children.contains(where: { found[Int($0)] != nil }) { return nil }
            let f = found[row]!
            return Flaky(
                id: row, path: NodePath.of(row, in: tree), name: tree[row].name, failures: f.failures, runs: f.runs,
                sameRun: true, firstFailureOutput: output(of: f.failed, in: tree))
        }
    }

    /// `sameRun` merged with the steps (`FlakyHistory.isStep`) `history` finds flaky
    /// (counting this run), in row order.
    static func flaky(in tree: TreeModel, history: FlakyHistory, sameRun: [Flaky]) -> [Flaky] {
        var byID: [Int: Flaky] = [:]
        for f in sameRun { byID[f.id] = f }
        var order: [Int] = []
        for (id, path) in NodePath.rows(in: tree) {
            // Its attempts in this run say more than its history.
            if byID[id] != nil { order.append(id) }
            // Steps only: a group fails with its steps.
            guard byID[id] == nil, FlakyHistory.isStep(id, in: tree), history.runs[path] != nil else { continue }
            let n = tree[tree.newestAttempt(id)]
            var now: FlakyHistory.Run?
            if n.display == .succeeded || n.display == .failed {
                let key = history.current[path] ?? history.runs[path]?.last?.key ?? InputKey(definition: nil)
                let seconds = n.startedAt.isNaN || n.endedAt.isNaN ? nil : n.endedAt - n.startedAt
                now = .init(start: history.start, outcome: n.display.reportKey, seconds: seconds, key: key)
            }
            guard let v = history.verdict(path, now: now) else { continue }
            // A leaf that failed this run keeps its output; a group's is its first failed leaf's.
            let failed = n.display == .failed ? tree.newestAttempt(id) : nil
            byID[id] = Flaky(
                id: id, path: path, name: tree[id].name, failures: v.failures, runs: v.runs, sameRun: false,
                firstFailureOutput: failed.map { output(of: $0, in: tree) } ?? [])
            order.append(id)
        }
        return order.compactMap { byID[$0] }
    }

    /// The last output lines of the failed node `id`, or of the first failed node below it
    /// that has output (a group's failing command).
    static func output(of id: Int, in tree: TreeModel) -> [String] {
        var stack = [id]
        var steps = 0
        while let n = stack.popLast(), steps < 100_000 {
            steps += 1
            guard tree.contains(n) else { continue }
            if let lines = tree.outputs[n]?.lines, !lines.isEmpty, tree[n].display == .failed {
                return lines.suffix(RunReport.stderrLines).map(\.text)
            }
            stack.append(contentsOf: tree[n].children.reversed().map(Int.init))
        }
        return []
    }

    /// The "Flaky" block's lines (sanitized); none without flaky nodes.
    var flakyLines: [String] {
        guard !flaky.isEmpty else { return [] }
        var out = ["Flaky: \(flaky.count)"]
        for f in flaky {
            let what =
                f.sameRun
                ? "failed \(f.failures) of \(f.runs) attempts in this run"
                : "flaky \(f.failures)/\(f.runs): failed \(f.failures) of the last \(f.runs) runs with the same inputs"
            out.append("  " + Sanitizer.clean(f.path) + "  " + what)
            if !f.firstFailureOutput.isEmpty {
                out.append("    first failure's output:")
                for line in f.firstFailureOutput { out.append("    | " + Sanitizer.clean(line)) }
            }
        }
        return out
    }

    /// `flaky` as a JSON array: `{path, name, failures, runs, sameRun, firstFailureOutput}`.
    func writeFlaky(to w: inout JSONWriter) {
        w.list(flaky) { w, f in
            w.raw("{\"path\":")
            w.string(f.path)
            w.raw(",\"name\":")
            w.string(f.name)
            w.raw(",\"failures\":")
            w.int(f.failures)
            w.raw(",\"runs\":")
            w.int(f.runs)
            w.raw(f.sameRun ? ",\"sameRun\":true" : ",\"sameRun\":false")
            w.raw(",\"firstFailureOutput\":")
            w.list(f.firstFailureOutput) { w, line in w.string(line) }
            w.raw("}")
        }
    }
}

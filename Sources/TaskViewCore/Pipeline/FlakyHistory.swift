/// Which nodes are flaky (docs/taskview.md, "Flaky nodes"): a node that both failed and
/// succeeded with the same input key (`InputKey`) in the last `window` runs, this run
/// counted once its node has settled. Nodes are matched across runs by `NodePath`.
package struct FlakyHistory: Sendable {
    /// How many runs count.
    package static let window = 10

    /// One earlier run of a node.
    package struct Run: Sendable, Equatable {
        /// When the run started: seconds since 1970 (UTC).
        package var start: Double
        /// `succeeded`, `failed`, ... (`HistoryEntry.Node.outcome`).
        package var outcome: String
        package var seconds: Double?
        package var key: InputKey

        package init(start: Double, outcome: String, seconds: Double?, key: InputKey) {
            self.start = start
            self.outcome = outcome
            self.seconds = seconds
            self.key = key
        }
    }

    /// A flaky node's record.
    package struct Verdict: Sendable, Equatable {
        /// Failures and runs (succeeded or failed) with the key, among the last `window`.
        package var failures: Int
        package var runs: Int
        /// Those runs, oldest first (this run last when it counted).
        package var list: [Run]

        /// `flaky 3/10`.
        package var label: String { "flaky \(failures)/\(runs)" }
    }

    /// The earlier runs of each node (the newest `window`, oldest first).
    package private(set) var runs: [String: [Run]] = [:]
    /// This run's input key of each node (nil for a path: the newest earlier run's key).
    package private(set) var current: [String: InputKey] = [:]
    /// When this run started: seconds since 1970 (UTC).
    package var start = 0.0
    /// Row paths, kept until the tree's structure changes (copies share it).
    private let paths = NodePathCache()

    package init() {}

    /// The flaky history of `entries` (oldest first) for a run started at `start` with the
    /// input keys `current`.
    package init(entries: [HistoryEntry], current: [String: InputKey], start: Double = 0) {
        var runs: [String: [Run]] = [:]
        for entry in entries.suffix(Self.window) {
            for n in entry.nodes {
                runs[n.path, default: []].append(
                    Run(start: entry.start, outcome: n.outcome, seconds: n.seconds, key: InputKey(n)))
            }
        }
        self.runs = runs
        self.current = current
        self.start = start
    }

    /// Whether no node has an earlier run.
    package var isEmpty: Bool { runs.isEmpty }

    /// The verdict on the node at `path`, counting this run as `now` when it settled (nil
    /// while it runs); nil when it is not flaky.
    package func verdict(_ path: String, now: Run? = nil) -> Verdict? {
        var list = runs[path] ?? []
        if let now { list.append(now) }
        list = Array(list.suffix(Self.window))
        guard let key = current[path] ?? list.last?.key else { return nil }
        let same = list.filter { $0.key == key && ($0.outcome == "succeeded" || $0.outcome == "failed") }
        let failures = same.count { $0.outcome == "failed" }
        guard failures > 0, failures < same.count else { return nil }
        return Verdict(failures: failures, runs: same.count, list: same)
    }

    /// The verdict on row `id` of `tree` as it stands (its newest attempt's outcome counts
    /// once it settled). Steps only: a group fails with its steps, and is not flaky itself.
    package func verdict(row id: Int, in tree: TreeModel) -> Verdict? {
        guard !runs.isEmpty, tree.contains(id), Self.isStep(id, in: tree) else { return nil }
        let path = paths.path(id, in: tree)
        guard runs[path] != nil else { return nil }
        let n = tree[tree.newestAttempt(id)]
        var now: Run?
        if n.display == .succeeded || n.display == .failed {
            let seconds = n.startedAt.isNaN || n.endedAt.isNaN ? nil : n.endedAt - n.startedAt
            now = Run(
                start: start, outcome: n.display == .succeeded ? "succeeded" : "failed", seconds: seconds,
                key: current[path] ?? runs[path]?.last?.key ?? InputKey(definition: nil))
        }
        return verdict(path, now: now)
    }
}

extension FlakyHistory {
    /// Whether node `id` is a step's row: a leaf, or an adapter drawn in one row with the leaf
    /// it folds into (a step with `needs`), not the leaf folded into its adapter's row.
    package static func isStep(_ id: Int, in tree: TreeModel) -> Bool {
        let p = Int(tree[id].parent)
        if p >= 0, tree.contains(p), tree[p].foldsIntoChild { return false }
        var c = id
        var steps = 0
        while tree[c].foldsIntoChild, steps < 10_000 {
            c = Int(tree[c].children[0])
            steps += 1
        }
        return tree.contains(c) && tree[c].children.isEmpty
    }

    /// The detail pane's lines for a flaky row: the verdict, then its runs with the same
    /// inputs (when, UTC; outcome; duration), newest first; nil when it is not flaky.
    package func detailLines(row id: Int, in tree: TreeModel) -> [String]? {
        guard let v = verdict(row: id, in: tree) else { return nil }
        var out = ["Flaky: failed \(v.failures) of the last \(v.runs) runs with the same inputs:"]
        for run in v.list.reversed() {
            var line = "  " + Self.utc(run.start) + "  " + run.outcome
            if let s = run.seconds { line += "  " + Format.duration(s) }
            out.append(line)
        }
        return out
    }

    /// `2026-11-28 15:04:05` for seconds since 1970 (UTC).
    static func utc(_ t: Double) -> String {
        guard t.isFinite, t >= 0, t < 1e11 else { return "?" }
        let secs = Int(t)
        let days = secs / 86_400
        let rest = secs % 86_400
        // Days to a civil date (Howard Hinnant's algorithm, from 1970-01-01).
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
    }
}

extension FlakyHistory: Equatable {
    /// Equal runs and keys (the path cache aside).
    package static func == (a: FlakyHistory, b: FlakyHistory) -> Bool {
        a.runs == b.runs && a.current == b.current
    }
}

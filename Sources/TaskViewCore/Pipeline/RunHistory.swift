import TaskGraph

/// How long each node of a scenario took in its earlier runs (docs/taskview.md, "Run
/// history"): from the newest `RunHistory.runs` entries of the scenario's history file, the
/// median duration of each node that succeeded, by its `NodePath`.
package struct RunHistory: Sendable, Equatable {
    /// How many earlier runs count.
    package static let runs = 10
    /// Trees larger than this get no ETA (walking them per frame would cost too much).
    package static let maxNodes = 20_000

    /// Median seconds by node path (`NodePath`).
    package var expected: [String: Double] {
        didSet { cache = RemainingCache() }
    }
    /// How many earlier runs the figures come from.
    package var runCount: Int
    /// Which nodes failed and succeeded with the same inputs (`FlakyHistory`).
    package var flaky = FlakyHistory()
    /// Median of each node's longest gap without progress or output, by path (the `silent`
    /// warning's usual gap; `HistoryEntry.Node.gap`).
    package var gaps: [String: Double] = [:]
    /// What `remaining` keeps between calls (copies share it; it knows which tree state
    /// it holds).
    private var cache = RemainingCache()

    /// Equal figures (what `remaining` keeps aside).
    package static func == (a: RunHistory, b: RunHistory) -> Bool {
        a.expected == b.expected && a.runCount == b.runCount
    }

    package init(expected: [String: Double] = [:], runCount: Int = 0) {
        self.expected = expected
        self.runCount = runCount
    }

    /// The figures of `entries` (oldest first): each node's median duration over the newest
    /// `runs` entries in which it succeeded.
    package init(entries: [HistoryEntry]) {
        let used = entries.suffix(Self.runs)
        var durations: [String: [Double]] = [:]
        for entry in used {
            for n in entry.nodes where n.outcome == "succeeded" {
                if let s = n.seconds, s.isFinite, s >= 0 { durations[n.path, default: []].append(s) }
            }
        }
        var expected: [String: Double] = [:]
        for (key, list) in durations {
            let sorted = list.sorted()
            let mid = sorted.count / 2
            expected[key] = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        }
        self.init(expected: expected, runCount: used.count)
        var gapLists: [String: [Double]] = [:]
        for entry in used {
            for n in entry.nodes { if let g = n.gap { gapLists[n.path, default: []].append(g) } }
        }
        gaps = gapLists.mapValues(Self.median)
    }

    private static func median(_ list: [Double]) -> Double {
        let sorted = list.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Seconds each row that succeeded took, by path: a restarted row's newest attempt, by
    /// the row's path.
    package static func succeededDurations(_ tree: TreeModel) -> [String: Double] {
        var out: [String: Double] = [:]
        for (id, key) in NodePath.rows(in: tree) {
            let n = tree[tree.newestAttempt(id)]
            guard n.display == .succeeded, !n.startedAt.isNaN, !n.endedAt.isNaN else { continue }
            out[key] = n.endedAt - n.startedAt
        }
        return out
    }

    /// The path node `id` is matched by (`NodePath`).
    package static func path(of id: Int, in tree: TreeModel) -> String {
        NodePath.of(id, in: tree)
    }

    /// The expected seconds of node `id`, when its path has a history (found once per
    /// structure of the tree).
    package func expected(_ id: Int, in tree: TreeModel) -> Double? {
        guard !expected.isEmpty else { return nil }
        return cache.expected(id, in: tree) { expected[Self.path(of: $0, in: tree)] }
    }

    /// Time-based progress of an executing leaf without progress of its own: elapsed over
    /// expected, at most 0.99, and the seconds left (at least 1 while it runs). Elapsed counts
    /// from when its work started (`TreeModel.workStart`): none while a command is queued.
    package func timeProgress(_ id: Int, in tree: TreeModel, now: Double) -> (fraction: Double, left: Double)? {
        let n = tree[id]
        guard n.state == .executing, n.children.isEmpty, n.fraction == 0, let start = tree.workStart(id),
            let e = expected(id, in: tree), e > 0
        else { return nil }
        let elapsed = max(0, now - start)
        return (min(0.99, elapsed / e), max(1, e - elapsed))
    }

    /// Seconds left for the run: the critical path of expected durations over what is
    /// still to run (groups that run their children at once take the longest child, others
    /// the sum), and how many leaves still to run have no history. Nil for trees larger
    /// than `maxNodes` or without history.
    package func remaining(in tree: TreeModel, now: Double) -> (seconds: Double, unknown: Int)? {
        guard !expected.isEmpty, tree.liveCount <= Self.maxNodes else { return nil }
        return cache.remaining(in: tree, now: now) { expected[Self.path(of: $0, in: tree)] }
    }
}

import TaskGraph

/// How long each node of a scenario took in its earlier runs (docs/taskview.md,
/// "taskview run"): from the replay logs of the last `RunHistory.runs` runs of the same scenario
/// file (the logs' header `file`), the median duration of each node that succeeded, by its
/// path of names from the root.
package struct RunHistory: Sendable, Equatable {
    /// How many earlier runs count.
    package static let runs = 10
    /// Trees larger than this get no ETA (walking them per frame would cost too much).
    package static let maxNodes = 20_000

    /// Median seconds by node path (`NodeKey.path`).
    package var expected: [String: Double] {
        didSet { cache = RemainingCache() }
    }
    /// How many earlier runs the figures come from.
    package var runCount: Int
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

    /// Seconds each node that succeeded took, by path: a restarted row's newest attempt, by
    /// the row's path.
    package static func succeededDurations(_ tree: TreeModel) -> [String: Double] {
        var out: [String: Double] = [:]
        for id in tree.nodes.ids where tree.contains(id) && !tree.isUnderHiddenRoot(id) {
            let n = tree[tree.newestAttempt(id)]
            guard n.display == .succeeded, !n.startedAt.isNaN, !n.endedAt.isNaN else { continue }
            let key = path(of: id, in: tree)
            if out[key] == nil { out[key] = n.endedAt - n.startedAt }
        }
        return out
    }

    /// Names from the root down to `id`, joined by U+001F (which no sanitized name holds).
    package static func path(of id: Int, in tree: TreeModel) -> String {
        var names: [String] = []
        var i = id
        while i >= 0 && tree.contains(i) && names.count < 4096 {
            names.append(tree[i].name)
            i = Int(tree[i].parent)
        }
        return names.reversed().joined(separator: "\u{1F}")
    }

    /// The expected seconds of node `id`, when its path has a history.
    package func expected(_ id: Int, in tree: TreeModel) -> Double? {
        expected.isEmpty ? nil : expected[Self.path(of: id, in: tree)]
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
        return cache.remaining(in: tree, now: now) { expected($0, in: tree) }
    }
}

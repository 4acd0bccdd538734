import TaskGraph

/// One run as `RunComparison` compares it (docs/taskview.md, "taskview diff"): each row's
/// outcome and time by its `NodePath`, the run's total time and its critical path. Made from
/// a replay log's tree or from a run history entry, so `diff`, the dashboard's baseline and
/// the end-of-run report compare runs the same way.
package struct RunRecord: Sendable, Equatable {
    /// One row of the run (a restarted row by its newest attempt).
    package struct Node: Sendable, Equatable {
        package var path: String
        /// `succeeded`, `failed`, `cancelled`, `skipped`, `notExecuted` or `executing`.
        package var outcome: String
        /// Seconds from start to end (nil: it never ran to an end).
        package var seconds: Double?
        /// CPU seconds its process used (commands; nil: not recorded).
        package var cpu: Double?
        /// Its process's peak resident memory in bytes (commands; nil: not recorded).
        package var rss: Int?
        /// No row of the run is below it (a step: what slower, faster and outcome changes
        /// list, so a group does not repeat its slowest step's change).
        package var leaf = true

        package init(
            path: String, outcome: String, seconds: Double?, cpu: Double? = nil, rss: Int? = nil, leaf: Bool = true
        ) {
            self.path = path
            self.outcome = outcome
            self.seconds = seconds
            self.cpu = cpu
            self.rss = rss
            self.leaf = leaf
        }
    }

    /// A step of the critical path.
    package struct Step: Sendable, Equatable {
        package var path: String
        package var seconds: Double
    }

    /// The rows, parents before children.
    package var nodes: [Node]
    /// Seconds the run took (nil: unknown).
    package var total: Double?
    /// The critical path, first to last (empty when unknown, as from a history entry).
    package var criticalPath: [Step]
    /// Index into `nodes` by path.
    package let index: [String: Int]

    /// A run of `nodes` (parents before children); `leaf` is worked out from the paths.
    package init(nodes: [Node], total: Double?, criticalPath: [Step] = []) {
        var parents = Set<Substring>(minimumCapacity: nodes.count / 2)
        for n in nodes {
            if let p = NodePath.parent(of: n.path) { parents.insert(p) }
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(nodes.count)
        var all = nodes
        for i in all.indices {
            all[i].leaf = !parents.contains(Substring(all[i].path))
            index[all[i].path] = i
        }
        self.nodes = all
        self.total = total
        self.criticalPath = criticalPath
        self.index = index
    }

    /// The run of a history entry (no critical path: the history does not keep one).
    package init(entry: HistoryEntry) {
        self.init(
            nodes: entry.nodes.map {
                Node(path: $0.path, outcome: $0.outcome, seconds: $0.seconds, cpu: $0.cpu, rss: $0.rss)
            },
            total: entry.seconds)
    }

    /// The run in `tree` (a replay log's, or a live run's): the rows as the history keeps
    /// them, the total and critical path as `RunReport` finds them.
    package init(tree: TreeModel) {
        let report = RunReport(tree: tree)
        var judged = tree
        judged.rejudge() // the rows above restarted ones, as `HistoryEntry` judges them
        var pathOf: [Int: String] = [:]
        var nodes: [Node] = []
        for (id, path) in NodePath.rows(in: tree) {
            let newest = tree.newestAttempt(id)
            let n = tree[newest]
            pathOf[newest] = path
            let usage = tree.usages[newest]?.usage
            nodes.append(
                Node(
                    path: path, outcome: (judged.rejudged[id] ?? n.display).reportKey,
                    seconds: n.startedAt.isNaN || n.endedAt.isNaN ? nil : n.endedAt - n.startedAt,
                    cpu: usage?.cpu, rss: usage?.rss))
        }
        let steps = report.criticalPath.compactMap { s in pathOf[s.id].map { Step(path: $0, seconds: s.duration) } }
        self.init(nodes: nodes, total: report.duration, criticalPath: steps)
    }

    /// The row at `path`, if the run has it.
    package subscript(path: String) -> Node? {
        index[path].map { nodes[$0] }
    }
}

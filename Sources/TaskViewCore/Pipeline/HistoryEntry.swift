import TaskGraph

/// One finished run of a scenario in its history file (docs/taskview.md, "Run history"): one
/// JSON line, what the ETA and comparisons with earlier runs need without reading the run's
/// log.
package struct HistoryEntry: Sendable, Equatable {
    /// One row of the run, matched across runs by its `NodePath`.
    package struct Node: Sendable, Equatable {
        package var path: String
        /// `succeeded`, `failed`, `cancelled`, `skipped`, `notExecuted` or `executing` (its
        /// newest attempt's).
        package var outcome: String
        /// Seconds from start to end of the newest attempt (nil: it never ran to an end).
        package var seconds: Double?
        /// 1, plus one for each restart.
        package var attempts: Int
        /// The input key: `DefinitionKey` of the node's definition in the scenario (nil: a
        /// node the scenario does not define, such as a retry's attempt).
        package var key: String?
        /// The git commit of the node's directory when the run started, and whether its tree
        /// was dirty (nil: not in a git work tree, or no git).
        package var commit: String?
        package var dirty: Bool?
        /// What the row's newest attempt cost, when it reported usage (a command): CPU
        /// seconds and peak RSS bytes.
        package var cpu: Double?
        package var rss: Int?
        /// The longest time in seconds the node ran without progress or output (its start and
        /// end count as activity): what the `silent` warning compares with (nil: unknown).
        package var gap: Double?

        package init(
            path: String, outcome: String, seconds: Double?, attempts: Int = 1, key: String? = nil,
            commit: String? = nil, dirty: Bool? = nil
        ) {
            self.path = path
            self.outcome = outcome
            self.seconds = seconds
            self.attempts = attempts
            self.key = key
            self.commit = commit
            self.dirty = dirty
        }
    }

    /// The run's id: its log's file name (nil: the run was not recorded).
    package var run: String?
    /// When the run started: seconds since 1970 (UTC).
    package var start: Double
    /// How long the run took (nil: its root never ended).
    package var seconds: Double?
    /// The exit status: 0, 1 or 130.
    package var status: Int
    /// The rows, parents before children (at most what fits in `maxLineBytes`).
    package var nodes: [Node]
    /// Rows left out to keep the line within `maxLineBytes`.
    package var omitted = 0

    /// The longest line a history file may hold; longer ones are skipped when read.
    package static let maxLineBytes = 1 << 20

    package init(run: String?, start: Double, seconds: Double?, status: Int, nodes: [Node], omitted: Int = 0) {
        self.run = run
        self.start = start
        self.seconds = seconds
        self.status = status
        self.nodes = nodes
        self.omitted = omitted
    }

    /// The entry of a finished run: every row of `tree` (a restarted row by its newest
    /// attempt, a row above one judged again from its children's), each with the input key
    /// `keys` gives its path and the git state `git` gives it, `gaps` its longest quiet time;
    /// the run's time from the root `root`.
    package init(
        tree: TreeModel, root: Int, run: String?, start: Double, status: Int, keys: [String: String],
        git: [String: GitInput] = [:], gaps: [String: Double] = [:]
    ) {
        var judged = tree
        judged.rejudge()
        var nodes: [Node] = []
        for (id, path) in NodePath.rows(in: tree) {
            let n = tree[tree.newestAttempt(id)]
            let seconds = n.startedAt.isNaN || n.endedAt.isNaN ? nil : n.endedAt - n.startedAt
            var node = Node(
                path: path, outcome: (judged.rejudged[id] ?? n.display).reportKey, seconds: seconds,
                attempts: 1 + (tree.attempts[id]?.count ?? 0), key: keys[path], commit: git[path]?.commit,
                dirty: git[path]?.dirty)
            if let usage = tree.usages[tree.newestAttempt(id)]?.usage {
                node.cpu = usage.cpu
                node.rss = usage.rss
            }
            node.gap = gaps[path]
            nodes.append(node)
        }
        var seconds: Double?
        if tree.contains(root) {
            let r = tree[root]
            if !r.startedAt.isNaN && !r.endedAt.isNaN { seconds = r.endedAt - r.startedAt }
        }
        self.init(run: run, start: start, seconds: seconds, status: status, nodes: nodes)
    }

    /// The entry as one JSON line without its `\n`: `run`, `start`, `seconds`, `status`,
    /// `nodes` (each `path`, `outcome`, `seconds`, `attempts`, `key`, `commit`, `dirty`, `cpu`, `rss`, `gap`; absent
    /// when nil), `omitted` when rows were left out. Rows that would take the line past
    /// `maxLineBytes` are left out and counted.
    package var line: String {
        var w = JSONWriter(capacity: 256 + nodes.count * 96)
        w.raw("{\"run\":")
        if let run { w.string(run) } else { w.raw("null") }
        w.raw(",\"start\":")
        w.double(start)
        if let seconds {
            w.raw(",\"seconds\":")
            w.double(seconds)
        }
        w.raw(",\"status\":")
        w.int(status)
        w.raw(",\"nodes\":[")
        var written = 0
        for n in nodes {
            var one = JSONWriter(capacity: 128)
            n.write(to: &one)
            // Room for the comma, `]`, `omitted` and `}`.
            if w.count + one.count + 40 > Self.maxLineBytes { break }
            if written > 0 { w.raw(",") }
            one.withBytes { w.raw(String(decoding: $0, as: UTF8.self)) }
            written += 1
        }
        w.raw("]")
        let left = omitted + nodes.count - written
        if left > 0 {
            w.raw(",\"omitted\":")
            w.int(left)
        }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension HistoryEntry.Node {
    fileprivate func write(to w: inout JSONWriter) {
        w.raw("{\"path\":")
        w.string(path)
        w.raw(",\"outcome\":")
        w.string(outcome)
        if let seconds {
            w.raw(",\"seconds\":")
            w.double(seconds)
        }
        w.raw(",\"attempts\":")
        w.int(attempts)
        if let key {
            w.raw(",\"key\":")
            w.string(key)
        }
        if let commit {
            w.raw(",\"commit\":")
            w.string(commit)
        }
        if let dirty { w.raw(dirty ? ",\"dirty\":true" : ",\"dirty\":false") }
        if let cpu {
            w.raw(",\"cpu\":")
            w.double(cpu)
        }
        if let rss {
            w.raw(",\"rss\":")
            w.int(rss)
        }
        if let gap {
            w.raw(",\"gap\":")
            w.double(gap)
        }
        w.raw("}")
    }
}

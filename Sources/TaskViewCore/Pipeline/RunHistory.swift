import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// How long each node of a scenario took in its earlier runs (docs/taskview.md,
/// "taskview run"): from the replay logs of the last `RunHistory.runs` runs of the same scenario
/// file (the logs' header `file`), the median duration of each node that succeeded, by its
/// path of names from the root.
public struct RunHistory: Sendable, Equatable {
    /// How many earlier runs count.
    public static let runs = 10
    /// Trees larger than this get no ETA (walking them per frame would cost too much).
    public static let maxNodes = 20_000

    /// Median seconds by node path (`NodeKey.path`).
    public var expected: [String: Double] {
        didSet { cache = RemainingCache() }
    }
    /// How many earlier runs the figures come from.
    public var runCount: Int
    /// What `remaining` keeps between calls (copies share it; it knows which tree state
    /// it holds).
    private var cache = RemainingCache()

    /// Equal figures (what `remaining` keeps aside).
    public static func == (a: RunHistory, b: RunHistory) -> Bool {
        a.expected == b.expected && a.runCount == b.runCount
    }

    public init(expected: [String: Double] = [:], runCount: Int = 0) {
        self.expected = expected
        self.runCount = runCount
    }

    /// The history of `file` (an absolute path) from the logs in `directory`, newest
    /// first. Logs that cannot be read are skipped with one `notice` (never a failure).
    public static func load(file: String, directory: String, notice: (String) -> Void) -> RunHistory {
        var candidates: [(mtime: Int, path: String)] = []
        guard let dir = opendir(directory) else { return RunHistory() }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".jsonl") else { continue }
            let path = directory + "/" + name
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            candidates.append((Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec), path))
        }
        closedir(dir)
        candidates.sort { $0.mtime > $1.mtime }
        var durations: [String: [Double]] = [:]
        var runs = 0
        var unreadable = 0
        for (_, path) in candidates where runs < Self.runs {
            guard headerFile(path) == file else { continue }
            guard let log = try? LogReader.load(path: path) else {
                unreadable += 1
                continue
            }
            var tree = TreeModel()
            tree.absorb(log.events)
            for (key, seconds) in succeededDurations(tree) { durations[key, default: []].append(seconds) }
            runs += 1
        }
        if unreadable > 0 {
            notice("ignoring \(unreadable) unreadable log\(unreadable == 1 ? "" : "s") of earlier runs in \(directory)")
        }
        var expected: [String: Double] = [:]
        for (key, list) in durations {
            let sorted = list.sorted()
            let mid = sorted.count / 2
            expected[key] = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        }
        return RunHistory(expected: expected, runCount: runs)
    }

    /// The header's `file` of the log at `path` (nil: none, or not a log).
    static func headerFile(_ path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var buf = [UInt8](repeating: 0, count: 64 << 10)
        let n = buf.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        guard let end = buf[..<n].firstIndex(of: 10) else { return nil }
        var stream = LogStream(name: path)
        guard let items = try? stream.feed(Array(buf[...end])) else { return nil }
        for case .header(let h) in items { return h.file }
        return nil
    }

    /// Seconds each node that succeeded took, by path.
    static func succeededDurations(_ tree: TreeModel) -> [String: Double] {
        var out: [String: Double] = [:]
        for id in tree.nodes.ids where tree.contains(id) {
            let n = tree[id]
            guard n.display == .succeeded, !n.startedAt.isNaN, !n.endedAt.isNaN else { continue }
            let key = path(of: id, in: tree)
            if out[key] == nil { out[key] = n.endedAt - n.startedAt }
        }
        return out
    }

    /// Names from the root down to `id`, joined by U+001F (which no sanitized name holds).
    public static func path(of id: Int, in tree: TreeModel) -> String {
        var names: [String] = []
        var i = id
        while i >= 0 && tree.contains(i) && names.count < 4096 {
            names.append(tree[i].name)
            i = Int(tree[i].parent)
        }
        return names.reversed().joined(separator: "\u{1F}")
    }

    /// The expected seconds of node `id`, when its path has a history.
    public func expected(_ id: Int, in tree: TreeModel) -> Double? {
        expected.isEmpty ? nil : expected[Self.path(of: id, in: tree)]
    }

    /// Time-based progress of an executing leaf without progress of its own: elapsed over
    /// expected, at most 0.99, and the seconds left (at least 1 while it runs).
    public func timeProgress(_ id: Int, in tree: TreeModel, now: Double) -> (fraction: Double, left: Double)? {
        let n = tree[id]
        guard n.state == .executing, n.children.isEmpty, n.fraction == 0, !n.startedAt.isNaN,
            let e = expected(id, in: tree), e > 0
        else { return nil }
        let elapsed = max(0, now - n.startedAt)
        return (min(0.99, elapsed / e), max(1, e - elapsed))
    }

    /// Seconds left for the run: the critical path of expected durations over what is
    /// still to run (groups that run their children at once take the longest child, others
    /// the sum), and how many leaves still to run have no history. Nil for trees larger
    /// than `maxNodes` or without history.
    public func remaining(in tree: TreeModel, now: Double) -> (seconds: Double, unknown: Int)? {
        guard !expected.isEmpty, tree.liveCount <= Self.maxNodes else { return nil }
        return cache.remaining(in: tree, now: now) { expected($0, in: tree) }
    }
}

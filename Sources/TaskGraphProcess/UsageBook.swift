import TaskGraph

/// The CPU and memory bookkeeping of the command runs being sampled, fed one pass over
/// `/proc` at a time (no I/O here: `UsageSampler` reads, this adds up).
///
/// A run's tree is its first process and every descendant by parent pid (a process group
/// is not followed: daemons that `setsid` stay in the tree), plus orphans adopted by this
/// process (a child subreaper, `ProcessTeardown.adoptOrphans()`) that carry the run's mark.
/// Its CPU is, over the tree's processes, their own time and that of the children they
/// collected (so a short-lived grandchild counts once its parent waited for it), plus the
/// last time seen of processes that left while their parent was outside the tree (the
/// first process, collected by this one; adopted orphans). It never goes down. Its peak
/// memory is the largest sum of the tree's resident pages seen in one pass.
struct UsageBook {
    struct Seen: Equatable {
        var started: UInt64
        var ticks: UInt64
        var parent: Int32
    }

    struct Run {
        let root: Int32
        /// The tree's processes at the last pass.
        var seen: [Int32: Seen] = [:]
        /// Ticks of processes that left and whose time no parent in the tree collected.
        var goneTicks: UInt64 = 0
        /// The largest total so far.
        var ticks: UInt64 = 0
        var peakBytes = 0

        init(root: Int32) { self.root = root }
    }

    private(set) var runs: [Int: Run] = [:]

    mutating func add(_ key: Int, root: Int32) { runs[key] = Run(root: root) }

    mutating func remove(_ key: Int) -> Run? { runs.removeValue(forKey: key) }

    /// The roots of the runs (to tell them from adopted orphans).
    var roots: Set<Int32> { Set(runs.values.map(\.root)) }

    /// One pass: `stats` is every process now; `adopter` this process's pid; `ownerOf`
    /// names the run an adopted orphan (a child of `adopter` that is no run's root)
    /// belongs to. Returns the runs whose usage changed, with their new usage.
    mutating func pass(
        _ stats: [ProcStat], adopter: Int32, pageSize: Int,
        ownerOf: (ProcStat) -> Int?
    ) -> [(key: Int, usage: NodeUsageTicks)] {
        var index: [Int32: Int] = [:]
        var children: [Int32: [Int]] = [:]
        index.reserveCapacity(stats.count)
        for (i, s) in stats.enumerated() {
            index[s.pid] = i
            children[s.parent, default: []].append(i)
        }
        var tops: [Int: [Int]] = [:] // run key -> its processes to walk from
        let roots = self.roots
        for i in children[adopter] ?? [] where !roots.contains(stats[i].pid) {
            if let key = ownerOf(stats[i]) { tops[key, default: []].append(i) }
        }
        var changed: [(key: Int, usage: NodeUsageTicks)] = []
        for key in runs.keys {
            var run = runs[key]!
            var stack = tops[key] ?? []
            if let r = index[run.root] { stack.append(r) }
            var now: [Int32: Seen] = [:]
            var live: UInt64 = 0
            var pages = 0
            while let i = stack.popLast() {
                let s = stats[i]
                guard now[s.pid] == nil else { continue }
                now[s.pid] = Seen(started: s.started, ticks: s.ticks, parent: s.parent)
                live &+= s.ticks
                if !s.zombie { pages += s.rssPages }
                stack.append(contentsOf: children[s.pid] ?? [])
            }
            for (pid, old) in run.seen {
                if let n = now[pid], n.started == old.started { continue }
                // Gone: its time is in the children's time of the nearest ancestor still in
                // the tree (each one between collected the one below, then ended); with no
                // such ancestor only what was seen of it is known.
                if !Self.collected(old, seen: run.seen, now: now) { run.goneTicks &+= old.ticks }
            }
            run.seen = now
            let before = NodeUsageTicks(ticks: run.ticks, bytes: run.peakBytes)
            run.ticks = max(run.ticks, live &+ run.goneTicks)
            run.peakBytes = max(run.peakBytes, pages * pageSize)
            let after = NodeUsageTicks(ticks: run.ticks, bytes: run.peakBytes)
            if after != before { changed.append((key, after)) }
            runs[key] = run
        }
        return changed
    }
}

extension UsageBook {
    /// Whether an ancestor of a process that left (as the last pass saw them) is still in
    /// the tree.
    static func collected(_ gone: Seen, seen: [Int32: Seen], now: [Int32: Seen]) -> Bool {
        var p = gone.parent
        for _ in 0..<4096 {
            if now[p] != nil { return true }
            guard let up = seen[p] else { return false }
            p = up.parent
        }
        return false
    }
}

/// A run's usage in the units `/proc` counts: clock ticks and bytes.
struct NodeUsageTicks: Equatable {
    var ticks: UInt64
    var bytes: Int
}

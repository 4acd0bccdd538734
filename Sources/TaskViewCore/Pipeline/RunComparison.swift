/// Two runs side by side (docs/taskview.md, "taskview diff"), rows matched by `NodePath`:
/// the totals, each critical path, the steps that got slower or faster, the outcome changes,
/// what was added and removed. The one comparison behind `taskview diff`, the dashboard's
/// Δ column and the end-of-run report's "Compared with the previous run".
package struct RunComparison: Sendable, Equatable {
    /// A step whose time changed enough to say so.
    package struct Change: Sendable, Equatable {
        package var path: String
        package var base: Double
        package var new: Double
        /// CPU seconds and peak memory (bytes) new minus base, when both runs have them.
        package var cpu: Double?
        package var rss: Int?
        package var delta: Double { new - base }
        /// New over base (nil when base took no time).
        package var ratio: Double? { base > 0 ? new / base : nil }
    }

    /// A step whose outcome changed.
    package struct OutcomeChange: Sendable, Equatable {
        package var path: String
        package var base: String
        package var new: String

        /// `fixed` (failed before, succeeded now), `broke` (the other way), `cancelled`
        /// (cancelled now), else `changed`.
        package var word: String {
            switch (base, new) {
            case ("failed", "succeeded"): "fixed"
            case ("succeeded", "failed"): "broke"
            case (_, "cancelled"): "cancelled"
            default: "changed"
            }
        }
    }

    /// Least change worth listing, in percent of the base time (`--min-change`).
    package static let defaultMinChange = 10.0
    /// Least change worth listing, in seconds, whatever the percentage.
    package static let minSeconds = 0.05
    /// How many slower and faster steps are listed each way.
    package static let listed = 10

    package var baseTotal: Double?
    package var newTotal: Double?
    package var baseCriticalPath: [RunRecord.Step]
    package var newCriticalPath: [RunRecord.Step]
    /// The largest slowdowns (at most `listed`), largest first.
    package var slower: [Change] = []
    /// The largest speedups (at most `listed`), largest first.
    package var faster: [Change] = []
    /// Steps in both runs whose outcome changed, in the new run's row order.
    package var outcomes: [OutcomeChange] = []
    /// Rows only the new run has / only the base run has (the topmost of each subtree).
    package var added: [String] = []
    package var removed: [String] = []

    /// Total seconds new minus base (nil unless both are known).
    package var totalDelta: Double? {
        guard let b = baseTotal, let n = newTotal else { return nil }
        return n - b
    }

    /// The total's change in percent of the base (nil unless both are known and the base
    /// took time).
    package var totalPercent: Double? {
        guard let d = totalDelta, let b = baseTotal, b > 0 else { return nil }
        return d / b * 100
    }

    /// Whether a change from `base` to `new` seconds is worth showing: at least `minSeconds`
    /// and at least `minChange` percent of `base`.
    package static func isSignificant(base: Double, new: Double, minChange: Double) -> Bool {
        let d = abs(new - base)
        return d >= minSeconds && (base <= 0 || d / base * 100 >= minChange)
    }

    /// `new` compared with `base`; steps listed when they changed by at least `minChange`
    /// percent (and `minSeconds`).
    package init(base: RunRecord, new: RunRecord, minChange: Double = Self.defaultMinChange) {
        baseTotal = base.total
        newTotal = new.total
        baseCriticalPath = base.criticalPath
        newCriticalPath = new.criticalPath
        var slower: [Change] = []
        var faster: [Change] = []
        for n in new.nodes {
            guard let b = base[n.path] else {
                // Only the topmost row of an added subtree.
                if let p = NodePath.parent(of: n.path), base[String(p)] == nil { continue }
                added.append(n.path)
                continue
            }
            guard n.leaf && b.leaf else { continue }
            if b.outcome != n.outcome { outcomes.append(OutcomeChange(path: n.path, base: b.outcome, new: n.outcome)) }
            guard let bs = b.seconds, let ns = n.seconds, Self.isSignificant(base: bs, new: ns, minChange: minChange)
            else { continue }
            var c = Change(path: n.path, base: bs, new: ns)
            if let x = b.cpu, let y = n.cpu { c.cpu = y - x }
            if let x = b.rss, let y = n.rss { c.rss = y - x }
            if ns > bs { slower.append(c) } else { faster.append(c) }
        }
        for b in base.nodes where new[b.path] == nil {
            if let p = NodePath.parent(of: b.path), new[String(p)] == nil { continue }
            removed.append(b.path)
        }
        func larger(_ a: Change, _ b: Change) -> Bool {
            abs(a.delta) != abs(b.delta) ? abs(a.delta) > abs(b.delta) : a.path < b.path
        }
        self.slower = Array(slower.sorted(by: larger).prefix(Self.listed))
        self.faster = Array(faster.sorted(by: larger).prefix(Self.listed))
    }
}

import Synchronization
import TaskGraph

/// The thresholds of taskview's `slow` and `silent` rules (`--slow-factor`, `--slow-after`,
/// `--silent-after`; docs/taskview.md, "Warnings").
package struct WarningThresholds: Sendable, Equatable {
    /// `slow`: running longer than this many times its median duration in history...
    package var slowFactor: Double
    /// ...and at least this many seconds longer.
    package var slowAfter: Double
    /// `silent`: seconds without progress or output; nil: 5× the node's usual longest gap
    /// (at least 30 s), 60 s without history.
    package var silentAfter: Double?

    package init(slowFactor: Double = 3, slowAfter: Double = 10, silentAfter: Double? = nil) {
        self.slowFactor = slowFactor
        self.slowAfter = slowAfter
        self.silentAfter = silentAfter
    }
}

/// A warning that begins (`text`) or ends (nil), for `Graph.warn`.
package struct WarningChange: Sendable, Equatable {
    package var id: Int
    package var rule: String
    package var text: String?

    package init(id: Int, rule: String, text: String?) {
        self.id = id
        self.rule = rule
        self.text = text
    }
}

/// taskview's `slow` and `silent` rules over a run's tree, checked on the dashboard's (or the
/// headless loop's) tick, never per event: a node's activity (progress, info, output lines)
/// is sampled at each check, so gaps are measured to a tick. It also keeps each node's longest
/// gap, for the run history (`HistoryEntry.Node.gap`).
package struct WarningRules: Sendable {
    package var thresholds: WarningThresholds
    /// Earlier runs: median durations and usual longest gaps, by path.
    package var history: RunHistory?

    private struct Activity {
        var fraction: Double
        var info: String?
        var lines: Int
        /// When the node was last seen active (its start at first).
        var last: Double
        var longest: Double
    }
    private var activity: [Int: Activity] = [:]
    /// Each node's warnings now (rules).
    private var active: [Int: Set<String>] = [:]
    /// Longest gaps of nodes that ended, by raw id.
    private var ended: [Int: Double] = [:]

    package init(thresholds: WarningThresholds = WarningThresholds(), history: RunHistory? = nil) {
        self.thresholds = thresholds
        self.history = history
    }

    /// The warnings that begin or end at `now` (the tree's clock): `slow` for an executing
    /// leaf with a history, `silent` for an executing command; each ends when its node stops
    /// executing, `silent` also when the node shows activity.
    package mutating func check(_ tree: TreeModel, now: Double) -> [WarningChange] {
        var out: [WarningChange] = []
        for (id, rules) in active where !Self.runs(tree, id) {
            for r in rules.sorted() { out.append(WarningChange(id: id, rule: r, text: nil)) }
            active[id] = nil
        }
        for (id, a) in activity where !Self.runs(tree, id) {
            let end = tree.contains(id) && !tree[id].endedAt.isNaN ? tree[id].endedAt : now
            ended[id] = max(a.longest, end - a.last)
            activity[id] = nil
        }
        for raw in tree.executingOrder {
            let id = Int(raw)
            guard Self.runs(tree, id), tree[id].children.isEmpty, let start = tree.workStart(id) else { continue }
            let n = tree[id]
            let lines = tree.outputs[id]?.total ?? 0
            // First seen with activity already: it happened by now (no earlier time is known).
            let busy = n.fraction != 0 || n.info != nil || lines > 0
            var a =
                activity[id]
                ?? Activity(fraction: n.fraction, info: n.info, lines: lines, last: busy ? now : start, longest: 0)
            if a.fraction != n.fraction || a.info != n.info || a.lines != lines {
                a.longest = max(a.longest, now - a.last)
                a.last = now
                a.fraction = n.fraction
                a.info = n.info
                a.lines = lines
                if active[id]?.contains(WarningRule.silent) == true {
                    active[id]?.remove(WarningRule.silent)
                    out.append(WarningChange(id: id, rule: WarningRule.silent, text: nil))
                }
            }
            activity[id] = a
            let has = active[id] ?? []
            if !has.contains(WarningRule.slow), let usual = history?.expected(id, in: tree), usual > 0 {
                let elapsed = now - start
                if elapsed > thresholds.slowFactor * usual && elapsed - usual >= thresholds.slowAfter {
                    let ratio = Self.oneDecimal(elapsed / usual)
                    begin(&out, id, WarningRule.slow, "slow: \(ratio)× its usual \(Self.short(usual))")
                }
            }
            if n.kind == NodeKind.command, !has.contains(WarningRule.silent) {
                let silence = now - a.last
                if silence >= silentLimit(tree, id) {
                    begin(&out, id, WarningRule.silent, "no output for \(Self.short(silence))")
                }
            }
        }
        return out
    }

    /// Each node's longest gap between activity (its start, progress, output, its end) in
    /// seconds, by path, for the run history.
    package func longestGaps(in tree: TreeModel) -> [String: Double] {
        var out: [String: Double] = [:]
        for (id, path) in NodePath.rows(in: tree) {
            let n = tree.newestAttempt(id)
            if let g = ended[n] ?? activity[n]?.longest { out[path] = g }
        }
        return out
    }

    private mutating func begin(_ out: inout [WarningChange], _ id: Int, _ rule: String, _ text: String) {
        active[id, default: []].insert(rule)
        out.append(WarningChange(id: id, rule: rule, text: text))
    }

    /// `--silent-after`, else 5× the usual longest gap (at least 30 s), else 60 s.
    private func silentLimit(_ tree: TreeModel, _ id: Int) -> Double {
        if let s = thresholds.silentAfter { return s }
        guard let gaps = history?.gaps, !gaps.isEmpty, let g = gaps[NodePath.of(id, in: tree)] else { return 60 }
        return max(30, 5 * g)
    }

    private static func runs(_ tree: TreeModel, _ id: Int) -> Bool {
        tree.contains(id) && tree[id].state == .executing
    }

    /// `3.4`.
    static func oneDecimal(_ x: Double) -> String {
        let tenths = Int((x * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `12s`, `2.5s`, `2m`, `2m30s`, `1h5m`.
    static func short(_ t: Double) -> String {
        let t = t.isFinite ? max(0, t) : 0
        if t < 10 { return oneDecimal(t).hasSuffix(".0") ? "\(Int(t.rounded()))s" : oneDecimal(t) + "s" }
        let s = Int(t.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + (s % 60 == 0 ? "" : "\(s % 60)s") }
        return "\(s / 3600)h" + ((s / 60) % 60 == 0 ? "" : "\((s / 60) % 60)m")
    }
}

/// `WarningRules` shared by the loop that checks them and the end of the run (which writes
/// the longest gaps into the history).
package final class SharedWarningRules: Sendable {
    private let rules: Mutex<WarningRules>

    package init(_ rules: WarningRules) { self.rules = Mutex(rules) }

    package func check(_ tree: TreeModel, now: Double) -> [WarningChange] {
        rules.withLock { $0.check(tree, now: now) }
    }

    package func longestGaps(in tree: TreeModel) -> [String: Double] {
        rules.withLock { $0.longestGaps(in: tree) }
    }
}

import TaskGraph

/// What a run comes down to (docs/taskview.md, "taskview report"): the first failure with the end
/// of its stderr, the critical path (the chain of steps that decided the total time), the
/// slowest commands, and the counts. Built from a `TreeModel`, so a live run, a headless
/// run and any replay log (`taskview report LOG`) give the same report.
package struct RunReport: Sendable, Equatable {
    /// The failure that happened first.
    package struct Failure: Sendable, Equatable {
        package var id: Int
        /// The node's name (raw; sanitized when printed).
        package var name: String
        /// The failure message (`exit status 2: ...` for a command).
        package var message: String
        /// When it failed (seconds on the run's clock).
        package var time: Double
        /// Its last stderr lines (at most `RunReport.stderrLines`), oldest first.
        package var stderr: [String]
    }

    /// A step that failed and succeeded when restarted.
    package struct Fixed: Sendable, Equatable {
        /// The row's node (its first attempt).
        package var id: Int
        package var name: String
        /// The attempt that succeeded (2 for the first restart).
        package var attempt: Int
        /// The first failure's message.
        package var message: String
        /// When the first attempt failed.
        package var time: Double
    }

    /// A step of the critical path, or one of the slowest commands.
    package struct Step: Sendable, Equatable {
        package var id: Int
        package var name: String
        package var start: Double
        package var duration: Double
    }

    /// Lines of stderr kept for the first failure.
    package static let stderrLines = 10
    /// How many of the slowest commands are listed.
    package static let slowestCount = 5

    /// The failure that happened first among the newest attempts (none when restarts
    /// fixed every failure).
    package var firstFailure: Failure?
    /// Steps whose failure a restart fixed, in row order.
    package var fixedByRestart: [Fixed] = []
    /// Flaky nodes (`RunReport+Flaky`), in row order.
    package var flaky: [Flaky] = []
    /// The steps marked `allowFailure` that failed or were skipped (newest attempts), by name:
    /// counted apart, never the first failure.
    package var allowed: [String] = []
    /// The steps whose ends decided when the run ended, first to last.
    package var criticalPath: [Step]
    /// The slowest commands (leaves when the run has no command), slowest first.
    package var slowest: [Step]
    /// Nodes per state: `succeeded`, `failed`, `cancelled`, `skipped`, `notExecuted`,
    /// `executing`.
    package var counts: [String: Int]
    /// Seconds from the first start to the last end.
    package var duration: Double
    /// The steps that waited longest for their needs and a slot, longest first (`RunReport+Waits`).
    package var waits: [WhyLine.Wait] = []
    /// Seconds every step waited for needs, and for a slot.
    package var waitedForNeeds = 0.0
    package var waitedForSlots = 0.0
    /// The nodes that used the most CPU time, and the largest peak memory (`RunReport+Usage`).
    package var topCPU: [UsageRank] = []
    package var topMemory: [UsageRank] = []
    /// The warnings the run had (`RunReport+Warnings.swift`).
    package var warnings: [ReportWarning] = []

    /// The report of `tree` as it stands: of the newest attempts, as the rows show them
    /// (the duration spans every attempt).
    package init(tree: TreeModel) {
        var leaves: [Step] = []
        var commandIDs: Set<Int> = []
        var first: Failure?
        var firstIsLeaf = false
        var runStart = Double.infinity
        var runEnd = 0.0
        let above = tree.attempts.isEmpty ? [] : tree.rowsAboveAttempts()
        var memo: [Int: DisplayState] = [:]
        for id in tree.nodes.ids where tree.contains(id) {
            let n = tree[id]
            // An attach session's row of a program: on the viewer's clock, not counted.
            if n.kind == TreeModel.programKind { continue }
            if !n.startedAt.isNaN { runStart = min(runStart, n.startedAt) }
            if !n.endedAt.isNaN { runEnd = max(runEnd, n.endedAt) }
            guard tree.isCurrent(id) else { continue }
            if above.contains(id), tree.judged(id, above: above, memo: &memo) != .failed { continue }
            let isLeaf = n.children.isEmpty && n.kind != NodeKind.ref
            if isLeaf, !n.startedAt.isNaN, !n.endedAt.isNaN {
                leaves.append(Step(id: id, name: n.name, start: n.startedAt, duration: n.endedAt - n.startedAt))
                if tree.commands[id] != nil || tree.outputs[id] != nil || n.kind == "command" { commandIDs.insert(id) }
            }
            if tree.allowsFailure(id) {
                let marked = tree.attributes[id]?.contains(RunVerdict.allowFailureAttribute) ?? false
                if marked, tree.isCurrent(id), n.display == .failed || n.display == .skipped { allowed.append(n.name) }
            } else if n.display == .failed, !n.endedAt.isNaN {
                // The earliest failure; at the same instant the innermost (a failing step
                // fails its group at once).
                let earlier =
                    first.map { n.endedAt < $0.time || (n.endedAt == $0.time && isLeaf && !firstIsLeaf) } ?? true
                if earlier {
                    let err = tree.outputs[id]?.lines.filter { $0.stream == .stderr }.map(\.text) ?? []
                    first = Failure(
                        id: id, name: n.name, message: n.message ?? "failed", time: n.endedAt,
                        stderr: Array(err.suffix(Self.stderrLines)))
                    firstIsLeaf = isLeaf
                }
            }
        }
        firstFailure = first
        fixedByRestart = Self.fixed(in: tree)
        flaky = Self.flakyInRun(tree)
        duration = runStart.isFinite ? max(0, runEnd - runStart) : 0
        criticalPath = Self.criticalPath(leaves, runStart: runStart)
        let timed = commandIDs.isEmpty ? leaves : leaves.filter { commandIDs.contains($0.id) }
        slowest = Array(
            timed.sorted { $0.duration != $1.duration ? $0.duration > $1.duration : $0.id < $1.id }
                .prefix(Self.slowestCount))
        var c: [String: Int] = [:]
        for s in DisplayState.allCases { c[s.reportKey] = tree.counts[s.rawValue] }
        counts = c
        (waits, waitedForNeeds, waitedForSlots) = Self.longestWaits(WhyLine.waits(in: tree))
        (topCPU, topMemory) = Self.usageRanks(tree)
        warnings = Self.warnings(in: tree)
    }

    /// The rows whose first attempt failed and whose newest succeeded, innermost only (not
    /// the groups that failed with them), counted rows only.
    static func fixed(in tree: TreeModel) -> [Fixed] {
        var fixed: [Int: Fixed] = [:]
        for (row, later) in tree.attempts where tree.contains(row) {
            let firstTry = tree[row]
            guard let newest = later.last, tree.contains(newest), tree[newest].display == .succeeded,
                firstTry.display == .failed
            else { continue }
            fixed[row] = Fixed(
                id: row, name: firstTry.name, attempt: later.count + 1, message: firstTry.message ?? "failed",
                time: firstTry.endedAt)
        }
        return fixed.keys.sorted().compactMap { row in
            let inner = tree[row].children.contains { fixed[Int($0)] != nil }
            return inner || !tree[row].counted ? nil : fixed[row]
        }
    }

    /// Backwards from the step that ended last: each step's predecessor is the step that
    /// ended last before it started (what it waited for), until a step started with the run.
    ///
    /// The leaves are sorted as `max` ranks them (by end; at the same end the lower id
    /// last), so the ones that ended by a time are a prefix and the step taken is the last
    /// unused one there: a binary search and a walk down past used ones that skips each run of
    /// them at once (union-find). O(L log L); a filter a step was quadratic (20,000 steps of
    /// zero-duration work, 10 s after a signal).
    static func criticalPath(_ leaves: [Step], runStart: Double) -> [Step] {
        func end(_ s: Step) -> Double { s.start + s.duration }
        let sorted = leaves.sorted { (end($0), $1.id) < (end($1), $0.id) }
        guard !sorted.isEmpty else { return [] }
        // below[i] == i: leaf i is unused; else where to look next, further down (-1: none).
        var below = Array(sorted.indices)
        func lastUnused(atOrBelow i: Int) -> Int {
            var r = i
            while r >= 0 && below[r] != r { r = below[r] }
            var j = i
            while j >= 0 && below[j] != j {
                let next = below[j]
                below[j] = r
                j = next
            }
            return r
        }
        let slack = 1e-3
        var k = sorted.count - 1
        var path: [Step] = []
        while true {
            let current = sorted[k]
            path.append(current)
            below[k] = k - 1
            guard current.start - runStart > slack else { break }
            let limit = current.start + slack
            var lo = 0
            var hi = sorted.count // the first leaf that ended after `limit`
            while lo < hi {
                let mid = (lo + hi) / 2
                if end(sorted[mid]) <= limit { lo = mid + 1 } else { hi = mid }
            }
            k = lastUnused(atOrBelow: lo - 1)
            guard k >= 0 else { break }
        }
        return path.reversed()
    }

    /// The report as text lines (sanitized), for the end of a run and `taskview report`.
    package var lines: [String] {
        var out: [String] = []
        if let f = firstFailure {
            out.append(
                "First failure: \(Sanitizer.clean(f.name)) at \(Format.seconds3(f.time))s: \(Sanitizer.clean(f.message))"
            )
            for line in f.stderr { out.append("  ! " + Sanitizer.clean(line)) }
        } else {
            out.append("First failure: none")
        }
        for f in fixedByRestart {
            out.append(
                "Fixed by restart: \(Sanitizer.clean(f.name)) (attempt \(f.attempt)); attempt 1 failed at "
                    + "\(Format.seconds3(f.time))s: \(Sanitizer.clean(f.message))")
        }
        out += flakyLines
        if !allowed.isEmpty {
            let names = allowed.prefix(5).map { Sanitizer.clean($0) }.joined(separator: ", ")
            out.append("Allowed failures: \(allowed.count) (\(names)\(allowed.count > 5 ? ", ..." : ""))")
        }
        let width = min(40, (criticalPath + slowest).map { Sanitizer.clean($0.name).count }.max() ?? 0)
        func row(_ s: Step) -> String {
            let name = Sanitizer.clean(s.name)
            let pad = String(repeating: " ", count: max(0, width - name.count))
            return "  " + name + pad + "  " + Format.seconds3(s.duration) + "s"
        }
        let pathTime = criticalPath.reduce(0) { $0 + $1.duration }
        out.append("Critical path (\(Format.seconds3(pathTime))s of \(Format.seconds3(duration))s):")
        out += criticalPath.map(row)
        out.append("Slowest:")
        out += slowest.map(row)
        out += waitLines
        out += usageLines
        out += warningLines
        return out
    }

    /// The report as one JSON object with the keys `firstFailure`, `fixedByRestart`,
    /// `allowed`, `flaky`, `criticalPath`, `slowest`, `waits`, `cpu`, `memory`, `counts` and
    /// `warnings` (docs/taskview.md), plus `duration`; times in seconds.
    package var json: String {
        var w = JSONWriter(capacity: 4096)
        w.raw("{\"firstFailure\":")
        if let f = firstFailure {
            w.raw("{\"id\":")
            w.int(f.id)
            w.raw(",\"name\":")
            w.string(f.name)
            w.raw(",\"message\":")
            w.string(f.message)
            w.raw(",\"time\":")
            w.double(f.time)
            w.raw(",\"stderr\":")
            w.list(f.stderr) { $0.string($1) }
            w.raw("}")
        } else {
            w.raw("null")
        }
        w.raw(",\"fixedByRestart\":")
        w.list(fixedByRestart) { w, f in
            w.raw("{\"id\":")
            w.int(f.id)
            w.raw(",\"name\":")
            w.string(f.name)
            w.raw(",\"attempt\":")
            w.int(f.attempt)
            w.raw(",\"message\":")
            w.string(f.message)
            w.raw(",\"time\":")
            w.double(f.time)
            w.raw("}")
        }
        w.raw(",\"allowed\":")
        w.list(allowed) { $0.string($1) }
        w.raw(",\"flaky\":")
        writeFlaky(to: &w)
        w.raw(",\"criticalPath\":")
        w.list(criticalPath) { $1.write(to: &$0) }
        w.raw(",\"slowest\":")
        w.list(slowest) { $1.write(to: &$0) }
        writeWaits(to: &w)
        writeUsage(to: &w)
        w.raw(",\"counts\":")
        w.list(DisplayState.allCases, open: "{", close: "}") { w, s in
            w.string(s.reportKey)
            w.raw(":")
            w.int(counts[s.reportKey] ?? 0)
        }
        w.raw(",\"duration\":")
        w.double(duration)
        w.raw(",\"warnings\":")
        writeWarnings(to: &w)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension RunReport.Step {
    /// The step as a JSON object: `id`, `name`, `start`, `duration`.
    fileprivate func write(to w: inout JSONWriter) {
        w.raw("{\"id\":")
        w.int(id)
        w.raw(",\"name\":")
        w.string(name)
        w.raw(",\"start\":")
        w.double(start)
        w.raw(",\"duration\":")
        w.double(duration)
        w.raw("}")
    }
}

extension JSONWriter {
    /// `items` between `open` and `close` (a JSON array by default), separated by commas,
    /// each written by `element`.
    mutating func list<C: Collection>(
        _ items: C, open: StaticString = "[", close: StaticString = "]",
        _ element: (inout JSONWriter, C.Element) -> Void
    ) {
        raw(open)
        for (i, item) in items.enumerated() {
            if i > 0 { raw(",") }
            element(&self, item)
        }
        raw(close)
    }
}

extension DisplayState {
    /// The state's key in a report's `counts`.
    var reportKey: String {
        switch self {
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .skipped: "skipped"
        case .notExecuted: "notExecuted"
        case .executing: "executing"
        }
    }
}

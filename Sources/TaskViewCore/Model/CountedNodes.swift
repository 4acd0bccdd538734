import TaskGraph

/// What the counts count (docs/taskview.md, "Counts"): the nodes the user made, each once,
/// in the state its row shows. The header, collapsed rows, summaries, reports and their JSON
/// all read `counts` (or `countsBelow`), so they agree.
extension TreeModel {
    /// Whether a node of `kind` counts: not the `after` adapter `needs` (or `after(_:)`)
    /// wraps a task in, which the dashboard folds into that task's row, nor an attach
    /// session's `NAME (pid N)` row (shown and exported, not one of the program's nodes), as
    /// `NodeKind.isCounted` decides for the log's `end` line too.
    static func isCounted(kind: String) -> Bool { NodeKind.isCounted(kind) }

    /// Nodes per `DisplayState.rawValue`, counting each row's newest attempt (a row above
    /// restarted rows as judged again from them, `rejudge()`) and leaving out what
    /// `isCounted(kind:)` leaves out and the nodes that only hold restarts' attempts.
    package var counts: [Int] {
        if attempts.isEmpty { return countsWithDropped }
        if rejudgedSequence == sequence, let known = rejudgedCounts { return known }
        return countsWithAttempts()
    }

    /// What the collapsed row of node `i` hides: counts per state of its descendants, as
    /// `counts` counts them.
    package func countsBelow(_ i: Int) -> SubtreeCounts {
        guard !attempts.isEmpty else { return nodes[i].descendantCounts }
        let above = rowsAboveAttempts()
        var memo: [Int: DisplayState] = [:]
        return countRows(from: i, above: above, memo: &memo) &- countRow(i, above: above, memo: &memo)
    }

    /// `counts` after restarts: a walk over the rows (O(nodes); only trees with attempts).
    func countsWithAttempts() -> [Int] {
        let above = rowsAboveAttempts()
        var memo: [Int: DisplayState] = [:]
        var total = SubtreeCounts()
        forEachRoot { r in
            if !hiddenRoots.contains(r) { total &+= countRows(from: r, above: above, memo: &memo) }
            return true
        }
        return DisplayState.allCases.map { total.count($0) + droppedCounts[$0.rawValue] }
    }

    /// Counts of row `i` and the rows below it, each in the state it is drawn with.
    func countRows(from i: Int, above: Set<Int>, memo: inout [Int: DisplayState]) -> SubtreeCounts {
        var total = SubtreeCounts()
        var stack = [i]
        while let n = stack.popLast() {
            total &+= countRow(n, above: above, memo: &memo)
            for c in nodes[n].children where contains(Int(c)) && !hiddenRoots.contains(Int(c)) {
                stack.append(Int(c))
            }
        }
        return total
    }

    /// One row's count: its newest attempt's state (judged again above restarted rows).
    func countRow(_ n: Int, above: Set<Int>, memo: inout [Int: DisplayState]) -> SubtreeCounts {
        nodes[n].counted ? .one(judged(n, above: above, memo: &memo)) : SubtreeCounts()
    }

    /// Adds `delta` nodes in `state` to the kept counts (`nodeCounts`, or `uncountedLive`).
    mutating func countNode(_ state: DisplayState, _ counted: Bool, _ delta: Int) {
        if counted {
            nodeCounts[state.rawValue] += delta
        } else {
            uncountedLive += delta
        }
    }

    /// A counted node `i` moved from `before` to `after`: the kept counts follow.
    mutating func recount(_ i: Int, from before: DisplayState, to after: DisplayState) {
        nodeCounts[before.rawValue] -= 1
        nodeCounts[after.rawValue] += 1
        addToAncestors(from: i, .change(from: before, to: after))
    }
}

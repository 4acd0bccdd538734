import TaskGraph

/// Restarts in the model: a restarted node's new attempt is drawn in
/// the rows of the node it replaces, descendant by descendant (an attempt is built from the
/// same definition, so it has the same shape).
extension TreeModel {
    /// Records `node` (absorbed already) as the newest attempt of `row`, and each of its
    /// descendants as the newest attempt of the row at the same place under `row`.
    package mutating func addAttempt(row: Int, node: Int) {
        var stack = [(row, node)]
        while let (r, n) = stack.popLast() {
            guard contains(r), contains(n) else { continue }
            attempts[r, default: []].append(n)
            let old = nodes[r].children
            let new = nodes[n].children
            for k in 0..<min(old.count, new.count) { stack.append((Int(old[k]), Int(new[k]))) }
        }
    }

    /// Hides a root holding restarts' attempts.
    package mutating func hideRoot(_ id: Int) { hiddenRoots.insert(id) }

    /// An `attempt` event: `node` is a new attempt of `of` (its first attempt: the row). The
    /// attempt is drawn in that row and the root holding it is not drawn. An `of` that is
    /// itself an attempt names the row it is drawn in; a node that is the row's own
    /// ancestor, or an unknown one, is ignored (a hostile log).
    mutating func placeAttempt(_ node: Int, of: Int) {
        guard contains(node), contains(of), node != of, attempts[of]?.contains(node) != true else { return }
        flushRollUp()
        var row = of
        for (r, list) in attempts where list.contains(of) {
            row = r
            break
        }
        guard !isAncestor(node, of: row), !isAncestor(row, of: node) else { return }
        // The highest node above the attempt that is not above the row: the restart's group.
        var top = node
        var steps = 0
        while steps < 1_000_000 {
            let p = Int(nodes[top].parent)
            guard p >= 0, contains(p), !isAncestor(p, of: row) else { break }
            top = p
            steps += 1
        }
        addAttempt(row: row, node: node)
        hideRoot(top)
        rejudgedSequence = .max // `rejudged` and its counts are out of date
    }

    /// How the run ended counting each row's newest attempt: a restarted row counts its
    /// newest attempt's outcome; a composite above restarted rows is judged again from its
    /// children (an `allSettled` always succeeds, `recover` takes the recovery when the
    /// first link did not succeed); other rows keep their own outcome.
    package func outcomeWithAttempts(root: Int) -> RootOutcome {
        guard contains(root) else { return .cancelled }
        var memo: [Int: DisplayState] = [:]
        switch judged(root, above: rowsAboveAttempts(), memo: &memo) {
        case .succeeded: return .succeeded
        case .failed: return .failed
        default: return .cancelled
        }
    }

    /// Judges again every row above a restarted row from its children's newest attempts,
    /// for the rows drawn (`rejudged`); does nothing when no event came since the last time.
    package mutating func rejudge() {
        guard !attempts.isEmpty, rejudgedSequence != sequence else { return }
        rejudgedSequence = sequence
        let above = rowsAboveAttempts()
        var memo: [Int: DisplayState] = [:]
        var out: [Int: DisplayState] = [:]
        for n in above { out[n] = judged(n, above: above, memo: &memo) }
        rejudged = out
        var fractions: [Int: Double] = [:]
        for n in above { _ = judgedFraction(n, above: above, memo: &fractions) }
        rejudgedFractions = fractions
        rejudgedCounts = countsWithAttempts()
    }

    /// The fraction row `n` shows: a row above restarted rows, the weighted mean of its child
    /// rows (each its newest attempt's: settled or skipped 1, running its fraction, not
    /// started 0; equal shares when no child weighs anything), 1 once judged succeeded.
    /// Children before parents with an explicit stack: a chain of any depth.
    func judgedFraction(_ n: Int, above: Set<Int>, memo: inout [Int: Double]) -> Double {
        var stack: [(node: Int, ready: Bool)] = [(n, false)]
        while let (x, ready) = stack.popLast() {
            guard memo[x] == nil, above.contains(x) else { continue }
            let kids = nodes[x].children.lazy.map { Int($0) }.filter { contains($0) && !hiddenRoots.contains($0) }
            if !ready {
                stack.append((x, true))
                for c in kids where memo[c] == nil && above.contains(c) { stack.append((c, false)) }
                continue
            }
            var sum = 0.0
            var weights = 0.0
            var plain = 0.0
            var count = 0
            for c in kids {
                let f = memo[c] ?? ownFraction(c)
                let w = nodes[c].weight
                sum += w * f
                weights += w
                plain += f
                count += 1
            }
            let mean = weights > 0 ? sum / weights : count > 0 ? plain / Double(count) : 0
            memo[x] = rejudged[x] == .succeeded ? 1 : min(1, mean)
        }
        return memo[n] ?? ownFraction(n)
    }

    /// The fraction of a row not above restarted rows: its newest attempt's.
    private func ownFraction(_ n: Int) -> Double {
        let s = nodes[newestAttempt(n)]
        switch s.display {
        case .executing: return s.fraction
        case .notExecuted: return 0
        default: return 1
        }
    }

    /// Whether node `n` is what the tree shows now: not a row's earlier attempt, and not a
    /// node a restart made only to hold its attempts.
    package func isCurrent(_ n: Int) -> Bool {
        guard !attempts.isEmpty, contains(n) else { return true }
        if attempts[n] != nil { return false }
        var p = n
        var steps = 0
        while p >= 0, contains(p), steps < 1_000_000 {
            if hiddenRoots.contains(p) { return attempts.values.contains { $0.last == n } }
            p = Int(nodes[p].parent)
            steps += 1
        }
        return true
    }

    /// Whether node `n` is in the subtree of a node that holds restarts' attempts (an
    /// attempt, drawn in the row it replaces, or the group a restart made).
    package func isUnderHiddenRoot(_ n: Int) -> Bool {
        guard !hiddenRoots.isEmpty else { return false }
        var p = n
        var steps = 0
        while p >= 0, contains(p), steps < 1_000_000 {
            if hiddenRoots.contains(p) { return true }
            p = Int(nodes[p].parent)
            steps += 1
        }
        return false
    }

    /// The rows that hold restarted rows below them.
    func rowsAboveAttempts() -> Set<Int> {
        var above = Set<Int>()
        for r in attempts.keys where contains(r) {
            var p = Int(nodes[r].parent)
            while p >= 0, contains(p), above.insert(p).inserted { p = Int(nodes[p].parent) }
        }
        return above
    }

    /// The state row `n` stands for: its newest attempt's; for a row above restarted rows,
    /// judged from its children as its kind would (running while one of them runs).
    /// Children before parents with an explicit stack: a chain of any depth.
    func judged(_ n: Int, above: Set<Int>, memo: inout [Int: DisplayState]) -> DisplayState {
        // Rows judged from their children: above restarted rows, and not themselves restarted.
        func judging(_ x: Int) -> Bool { newestAttempt(x) == x && above.contains(x) }
        func value(_ x: Int, _ memo: [Int: DisplayState]) -> DisplayState {
            judging(x) ? memo[x] ?? nodes[x].display : nodes[newestAttempt(x)].display
        }
        var stack: [(node: Int, ready: Bool)] = [(n, false)]
        while let (x, ready) = stack.popLast() {
            guard judging(x), memo[x] == nil else { continue }
            if !ready {
                stack.append((x, true))
                for c in nodes[x].children where contains(Int(c)) && judging(Int(c)) && memo[Int(c)] == nil {
                    stack.append((Int(c), false))
                }
                continue
            }
            var kids: [DisplayState] = []
            for c in nodes[x].children where contains(Int(c)) { kids.append(value(Int(c), memo)) }
            let out: DisplayState
            if kids.contains(.executing) {
                out = .executing
            } else {
                switch nodes[x].kind {
                case NodeKind.allSettled: out = .succeeded
                case NodeKind.recover:
                    out = kids.first == .succeeded || kids.count < 2 ? (kids.first ?? .succeeded) : kids[1]
                case NodeKind.retry: out = kids.last ?? nodes[x].display
                default:
                    if kids.contains(.failed) {
                        out = .failed
                    } else if kids.contains(.cancelled) {
                        out = .cancelled
                    } else if kids.allSatisfy({ $0 == .succeeded }) {
                        out = .succeeded
                    } else {
                        out = nodes[x].display
                    }
                }
            }
            memo[x] = out
        }
        return value(n, memo)
    }
}

extension TreeModel.Node {
    /// The node as drawn in a row judged again (`TreeModel.rejudged`): its state, failure
    /// and progress made to say `state`.
    package mutating func show(as state: DisplayState) {
        guard state != display else { return }
        skipped = false
        cancelSource = nil
        switch state {
        case .succeeded:
            self.state = .completed
            failed = false
            message = nil
            fraction = 1
        case .failed:
            self.state = .completed
            failed = true
        case .executing:
            self.state = .executing
            failed = false
            message = nil
        case .cancelled:
            self.state = .cancelled
        case .notExecuted, .skipped:
            break
        }
    }
}

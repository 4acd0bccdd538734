import TaskGraph

/// What one restart re-runs (docs/taskview.md "Restart"), worked out on the rows: the restarted
/// row, the later steps of its `sequential`s that never ran because it failed, and the rows
/// skipped by `needs` because of any of them, each again with the steps after it.
package struct RestartPlan: Sendable, Equatable {
    /// Rows run one after another: the first chain starts with the restarted row, each later
    /// one with a row skipped by its needs; the rest of a chain are the steps after its head
    /// that never ran (a `sequential` stops at a failure).
    package var chains: [[Int]] = []

    /// The rows that run again besides the restarted one (what `r` asks about: "and K nodes
    /// that need it").
    package var others: Int { max(0, chains.reduce(0) { $0 + $1.count } - 1) }
}

extension TreeModel {
    /// The restart of `row` (a settled row).
    package func restartPlan(_ row: Int) -> RestartPlan {
        var plan = RestartPlan()
        guard contains(row) else { return plan }
        var members = Set<Int>()
        func inside(_ n: Int) -> Bool {
            var p = n
            var steps = 0
            while p >= 0, contains(p), steps < 1_000_000 {
                if members.contains(p) { return true }
                p = Int(nodes[p].parent)
                steps += 1
            }
            return false
        }
        func addChain(_ head: Int) {
            let chain = [head] + stepsAfter(head).filter { !members.contains($0) && !inside($0) }
            plan.chains.append(chain)
            members.formUnion(chain)
        }
        addChain(row)
        let map = needsMap
        guard !map.needs.isEmpty else { return plan }
        let candidates = map.needs.sorted { $0.key < $1.key }
        var changed = true
        while changed {
            changed = false
            let reached = Set(map.needs.values.joined().filter(inside))
            for (n, needs) in candidates where !inside(n) && needs.contains(where: reached.contains) {
                guard contains(n), nodes[newestAttempt(n)].skippedByNeeds,
                    needs.allSatisfy({ reached.contains($0) || nodes[newestAttempt($0)].display == .succeeded })
                else { continue }
                addChain(n)
                changed = true
                break // what it reaches may let more run
            }
        }
        return plan
    }

    /// The rows `row` needs (`needs`), transitively, each before the rows that need it: what
    /// `a` at the restart question runs again first. Rows still running are left out (they
    /// are waited for as they are).
    package func restartNeeds(_ row: Int) -> [Int] {
        let map = needsMap
        guard !map.needs.isEmpty, contains(row) else { return [] }
        var out: [Int] = []
        var seen: Set<Int> = [row]
        // Iterative post-order: a row after everything it needs.
        var stack: [(row: Int, next: Int)] = [(row, 0)]
        while let top = stack.last {
            let needs = map.needs[top.row] ?? []
            if top.next < needs.count {
                stack[stack.count - 1].next += 1
                let n = needs[top.next]
                if contains(n), seen.insert(n).inserted { stack.append((n, 0)) }
                continue
            }
            stack.removeLast()
            if top.row != row, nodes[newestAttempt(top.row)].state.isSettled { out.append(top.row) }
        }
        return out
    }

    /// The rows after `row` that never ran because it did not succeed: the later steps of its
    /// `sequential` (or `then`) up to the first one that ran, then, when every later step of it
    /// never ran (the group stopped because of `row`), the same one level up. Climbs through
    /// a `concurrent` whose other children all succeeded, a `timeout`, a `recover`'s
    /// recovery and a `retry`'s last attempt (each failed because of it), and stops at an
    /// `allSettled` (which never stops for a failure) and anything else.
    func stepsAfter(_ row: Int) -> [Int] {
        var out: [Int] = []
        var cur = row
        var steps = 0
        func neverRan(_ n: Int) -> Bool {
            let d = nodes[newestAttempt(n)].display
            return d == .skipped || d == .notExecuted
        }
        while steps < 100_000 {
            steps += 1
            let p = Int(nodes[cur].parent)
            guard p >= 0, contains(p) else { break }
            let kids = nodes[p].children.map { Int($0) }
            guard let i = kids.firstIndex(of: cur) else { break }
            let later = kids[(i + 1)...]
            switch nodes[p].kind {
            case NodeKind.sequential, NodeKind.then:
                for k in later {
                    guard contains(k), neverRan(k) else { return out }
                    out.append(k)
                }
            case NodeKind.after, NodeKind.map, NodeKind.timeout:
                break
            case NodeKind.concurrent:
                for k in kids where k != cur {
                    guard contains(k), nodes[newestAttempt(k)].display == .succeeded else { return out }
                }
            case NodeKind.recover:
                guard i == 1 else { return out }
            case NodeKind.retry:
                guard later.isEmpty else { return out }
            default:
                return out
            }
            cur = p
        }
        return out
    }
}

import TaskGraph

/// How a scenario run ended, judged by its steps (docs/taskview.md "Exit status"): it
/// failed when the newest attempt of any step failed or was skipped because something it
/// needed failed, whatever the root's kind (an `allSettled` root succeeds in the graph);
/// a node marked `allowFailure` is counted apart instead. A failure something handled does
/// not count: a `recover`'s first link when the recovery ran, a `retry`'s earlier attempts.
/// A run quit or interrupted (source `quit` or `signal` on the root or a restart's group)
/// was cancelled, whatever had failed.
package struct RunVerdict: Sendable, Equatable {
    /// The attribute a node with `allowFailure` carries (in the graph, its log and exports).
    package static let allowFailureAttribute = NodeAttribute("taskview.allowFailure", "true")

    /// How the run ended; nil while the root or a restart's attempts still run.
    package private(set) var outcome: RootOutcome?
    /// The nodes whose failure or skip fails the run (newest attempts), in tree order.
    package private(set) var failing: [Int] = []
    /// The rows marked `allowFailure` that failed or were skipped, in tree order.
    package private(set) var allowed: [Int] = []

    /// The verdict of the run under `root` in `tree`.
    package init(tree: TreeModel, root: Int) {
        guard tree.contains(root) else {
            outcome = .cancelled
            return
        }
        var failing: [Int] = []
        var allowed: [Int] = []
        Self.walk(tree, root, top: false, failing: &failing, allowed: &allowed)
        self.failing = failing
        self.allowed = allowed
        let groups = tree.hiddenRoots.filter { tree.contains($0) }
        guard tree[root].state.isSettled, groups.allSatisfy({ tree[$0].state.isSettled }) else { return }
        let stopped = ([root] + groups).contains { r in
            let source = tree[r].cancelSource
            return tree[r].state == .cancelled
                && (source == ViewerCancelSource.quit || source == ViewerCancelSource.signal)
        }
        if stopped {
            outcome = .cancelled
        } else if !failing.isEmpty {
            outcome = .failed
        } else {
            let judged = tree.attempts.isEmpty ? nil : tree.outcomeWithAttempts(root: root)
            switch judged {
            case let judged?: outcome = judged
            case nil where tree[root].display == .succeeded: outcome = .succeeded
            case nil where tree[root].display == .failed: outcome = .failed
            case nil: outcome = .cancelled
            }
        }
    }

    /// Collects the failing nodes under row `start` (an allowed row found below is counted
    /// apart with what failed under it). `top`: `start` itself is not looked at for
    /// `allowFailure` (the allowed row being walked).
    private static func walk(_ tree: TreeModel, _ start: Int, top: Bool, failing: inout [Int], allowed: inout [Int]) {
        var stack = [start]
        while let n = stack.popLast() {
            guard tree.contains(n) else { continue }
            let s = tree.newestAttempt(n)
            guard tree.contains(s) else { continue }
            let node = tree[s]
            if !(top && n == start), tree.allowsFailure(n) || tree.allowsFailure(s) {
                var inner: [Int] = []
                walk(tree, n, top: true, failing: &inner, allowed: &allowed)
                if !inner.isEmpty { allowed.append(n) }
                continue
            }
            if node.skippedByNeeds {
                failing.append(s)
                continue
            }
            // A restarted row's rows below are the first attempt's (each showing its newest
            // attempt); a retry's attempts are the newest attempt's own.
            let kids = (s == n || node.kind == NodeKind.retry ? node.children : tree[n].children).map(Int.init)
                .filter { tree.contains($0) }
            if kids.isEmpty {
                if node.display == .failed { failing.append(s) }
                continue
            }
            var next = kids
            switch node.kind {
            case NodeKind.retry:
                next = [kids[kids.count - 1]]
            case NodeKind.recover where kids.count == 2:
                let first = tree[tree.newestAttempt(kids[0])].display
                next = [first == .succeeded ? kids[0] : kids[1]]
            case NodeKind.timeout:
                if node.display == .failed, tree[tree.newestAttempt(kids[0])].display == .cancelled {
                    failing.append(s) // it ran out of time
                    continue
                }
            default:
                break
            }
            stack.append(contentsOf: next.reversed())
        }
    }
}

extension TreeModel {
    /// How many nodes marked `allowFailure` failed or were skipped (newest attempts).
    package var allowedFailures: Int {
        var k = 0
        for (id, list) in attributes where list.contains(RunVerdict.allowFailureAttribute) && contains(id) {
            let d = nodes[id].display
            if (d == .failed || d == .skipped) && isCurrent(id) { k += 1 }
        }
        return k
    }

    /// Whether node `id` is marked `allowFailure` (`RunVerdict.allowFailureAttribute`), by
    /// itself or by the `after` node that guards it.
    package func allowsFailure(_ id: Int) -> Bool {
        guard !attributes.isEmpty, contains(id) else { return false }
        func marked(_ i: Int) -> Bool {
            attributes[i]?.contains { $0 == RunVerdict.allowFailureAttribute } ?? false
        }
        if marked(id) { return true }
        let p = Int(nodes[id].parent)
        return p >= 0 && contains(p) && nodes[p].kind == NodeKind.after && nodes[p].children.first == Int32(id)
            && marked(p)
    }
}

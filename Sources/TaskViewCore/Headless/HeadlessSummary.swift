import TaskGraph

/// Counts, duration and the final tree of a session, as plain ASCII lines (used by the
/// headless output and, shortened, by the summary printed after the dashboard closes).
package struct HeadlessSummary: Sendable {
    package let tree: TreeModel

    package init(tree: TreeModel) {
        self.tree = tree
    }

    /// The root a session is about: `root` if live, else the first root.
    package func rootID(_ root: Int?) -> Int? {
        if let root, tree.contains(root) { return root }
        var first: Int?
        tree.forEachRoot {
            first = $0
            return false
        }
        return first
    }

    /// Seconds on the graph clock until the root settled (last event time otherwise).
    package func duration(root: Int?) -> Double {
        if let r = rootID(root), !tree[r].endedAt.isNaN {
            // After restarts the run ends with the last restart's attempts.
            var end = tree[r].endedAt
            for h in tree.hiddenRoots where tree.contains(h) && !tree[h].endedAt.isNaN {
                end = max(end, tree[h].endedAt)
            }
            return end
        }
        return tree.time
    }

    /// `Summary: 3 succeeded, 1 failed, 0 cancelled, 2 skipped, 0 not executed, 0 executing`
    package var countsLine: String { Self.countsLine(tree.counts) }

    /// The counts line for counts per `DisplayState.rawValue`.
    package static func countsLine(_ c: [Int]) -> String {
        return "Summary: \(c[DisplayState.succeeded.rawValue]) succeeded, \(c[DisplayState.failed.rawValue]) failed, "
            + "\(c[DisplayState.cancelled.rawValue]) cancelled, \(c[DisplayState.skipped.rawValue]) skipped, "
            + "\(c[DisplayState.notExecuted.rawValue]) not executed, \(c[DisplayState.executing.rawValue]) executing"
    }

    /// `#ID NAME: STATE` with the error or cancel source (sanitized; the tree lines are
    /// ASCII, names keep their characters).
    package func describe(_ i: Int) -> String {
        let n = tree[i]
        var s = "#\(i) " + name(i) + ": " + n.display.word
        if n.display == .failed { s += ": " + Sanitizer.clean(n.message ?? "error") }
        if n.display == .cancelled, let src = n.cancelSource { s += " (" + Sanitizer.clean(src) + ")" }
        if n.skippedByNeeds, let why = n.info { s += " (" + Sanitizer.clean(why) + ")" }
        if n.display == .failed || n.display == .skipped { s += HeadlessPrinter.allowed(i, in: tree) }
        return s
    }

    /// The node's name, sanitized; a `ref` node names the shared node it stands for
    /// (`-> fetch user #12`), as the dashboard's row does.
    func name(_ i: Int) -> String {
        let n = tree[i]
        guard n.kind == NodeKind.ref, n.refOf >= 0 else { return Sanitizer.clean(n.name) }
        let of = Int(n.refOf)
        return "-> " + Sanitizer.clean(tree.contains(of) ? tree[of].name : n.name) + " #" + String(of)
    }

    /// The whole block.
    package func lines(root: Int?) -> [String] {
        var out = [countsLine, "Duration: " + Format.seconds3(duration(root: root)) + "s"]
        tree.forEachRoot { r in
            appendTree(r, into: &out)
            return true
        }
        return out
    }

    /// Levels deeper than this are drawn flat with a depth marker, so a 100,000-link chain
    /// does not print quadratic indentation.
    static let maxIndent = 64

    func appendTree(_ root: Int, into out: inout [String]) {
        // Iterative preorder; `lastFlags[k]`: whether the ancestor at depth k+1 was a last child.
        var stack: [(id: Int, depth: Int, last: Bool)] = [(root, 0, true)]
        var lastFlags: [Bool] = []
        while let (id, depth, isLast) = stack.popLast() {
            guard tree.contains(id) else { continue }
            if depth > 0 {
                if lastFlags.count >= depth { lastFlags.removeLast(lastFlags.count - depth + 1) }
                var prefix = ""
                if depth > HeadlessSummary.maxIndent {
                    prefix = "[depth \(depth)] "
                } else {
                    for k in 0..<(depth - 1) { prefix += lastFlags[k] ? "   " : "|  " }
                }
                prefix += isLast ? "`- " : "|- "
                lastFlags.append(isLast)
                out.append(prefix + describe(id))
            } else {
                lastFlags.removeAll()
                out.append(describe(id))
            }
            // An `after` node is drawn with the task it guards (as the dashboard's row).
            var shown = id
            if tree[id].kind == NodeKind.after, tree[id].foldsIntoChild, tree.contains(Int(tree[id].children[0])) {
                shown = Int(tree[id].children[0])
            }
            let kids = tree[shown].children.filter { tree.contains(Int($0)) }
            for (k, c) in kids.enumerated().reversed() {
                stack.append((Int(c), depth + 1, k == kids.count - 1))
            }
        }
    }
}

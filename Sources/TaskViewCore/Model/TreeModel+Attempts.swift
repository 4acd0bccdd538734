import TaskGraph

/// Restarts in the model: a restarted node's new attempt is drawn in
/// the rows of the node it replaces, descendant by descendant (an attempt is built from the
/// same definition, so it has the same shape).
extension TreeModel {
    /// Records `node` (absorbed already) as the newest attempt of `row`, and each of its
    /// descendants as the newest attempt of the row at the same place under `row`.
    public mutating func addAttempt(row: Int, node: Int) {
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
    public mutating func hideRoot(_ id: Int) { hiddenRoots.insert(id) }

    /// An `attempt` event: `node` is a new attempt of `of` (its first attempt: the row). The
    /// attempt is drawn in that row and the root holding it is not drawn. An `of` that is
    /// itself an attempt names the row it is drawn in; a node that is the row's own
    /// ancestor, or an unknown one, is ignored (a hostile log).
    mutating func placeAttempt(_ node: Int, of: Int) {
        guard contains(node), contains(of), node != of, attempts[of]?.contains(node) != true else { return }
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
    }

    /// How the run ended counting each row's newest attempt: a restarted row counts its
    /// newest attempt's outcome; a composite above restarted rows is judged again from its
    /// children (an `allSettled` always succeeds, `recover` takes the recovery when the
    /// first link did not succeed); other rows keep their own outcome.
    public func outcomeWithAttempts(root: Int) -> RootOutcome {
        var touched = Set<Int>()
        for r in attempts.keys {
            var p = Int(nodes[r].parent)
            while p >= 0, contains(p), touched.insert(p).inserted { p = Int(nodes[p].parent) }
        }
        func state(_ n: Int, depth: Int) -> DisplayState {
            let s = shownNode(n)
            if s != n { return nodes[s].display }
            guard touched.contains(n), depth < 10_000 else { return nodes[n].display }
            let kids = nodes[n].children.map { state(Int($0), depth: depth + 1) }
            switch nodes[n].kind {
            case NodeKind.allSettled: return .succeeded
            case NodeKind.recover:
                return kids.first == .succeeded || kids.count < 2 ? (kids.first ?? .succeeded) : kids[1]
            case NodeKind.retry: return kids.last ?? nodes[n].display
            default:
                if kids.contains(.failed) { return .failed }
                if kids.contains(.cancelled) { return .cancelled }
                if kids.allSatisfy({ $0 == .succeeded }) { return .succeeded }
                return nodes[n].display
            }
        }
        guard contains(root) else { return .cancelled }
        switch state(root, depth: 0) {
        case .succeeded: return .succeeded
        case .failed: return .failed
        default: return .cancelled
        }
    }
}

import Synchronization

/// What `RunHistory.remaining` needs of a tree, kept between calls: each leaf's expected
/// seconds (found by its path of names, which only a change of structure changes) and the
/// still-to-run part of the tree in post-order (which only an event changes). A header
/// drawn again with no new event only adds up the plan at the new time.
final class RemainingCache: Sendable {
    private let state = Mutex(State())

    private struct State: Sendable {
        /// The structure the memo is for: `structureVersion`, node slots.
        var structure: (version: UInt64, slots: Int) = (.max, -1)
        /// Expected seconds by leaf id (nil: no history), filled as leaves are met.
        var expected: [Int: Double?] = [:]
        /// The tree state the plan is for: `sequence`, `structureVersion`, node slots.
        var planKey: (sequence: UInt64, version: UInt64, slots: Int) = (.max, .max, -1)
        var plan = RemainingPlan()
        /// Scratch for `RemainingPlan.seconds`.
        var values: [Double] = []

        /// Drops the expected seconds found for another structure than `tree`'s.
        mutating func forget(unless tree: TreeModel) {
            let structure = (tree.structureVersion, tree.nodes.count)
            if self.structure != structure {
                self.structure = structure
                expected.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Node `id`'s expected seconds, `lookup`'s answer kept until the structure changes
    /// (finding a path costs the node's depth times its siblings).
    func expected(_ id: Int, in tree: TreeModel, lookup: (Int) -> Double?) -> Double? {
        state.withLock { s in
            s.forget(unless: tree)
            if let known = s.expected[id] { return known }
            let e = lookup(id)
            s.expected[id] = e
            return e
        }
    }

    /// `RunHistory.remaining` of `tree` at `now`; `lookup` gives a leaf's expected seconds.
    func remaining(in tree: TreeModel, now: Double, lookup: (Int) -> Double?) -> (seconds: Double, unknown: Int) {
        state.withLock { s in
            s.forget(unless: tree)
            let key = (tree.sequence, tree.structureVersion, tree.nodes.count)
            if s.planKey != key {
                s.planKey = key
                var memo: [Int: Double?] = [:]
                swap(&memo, &s.expected)
                s.plan.build(tree) { id in
                    if let known = memo[id] { return known }
                    let e = lookup(id)
                    memo[id] = e
                    return e
                }
                swap(&memo, &s.expected)
            }
            return (s.plan.seconds(now: now, scratch: &s.values), s.plan.unknown)
        }
    }
}

/// The still-to-run part of a tree in post-order, to add up at any time: leaves with their
/// expected seconds (an executing one also with its start), groups combining the values of
/// their children, roots taking the largest.
struct RemainingPlan: Sendable {
    enum Step: Sendable {
        /// A leaf still to run: `expected` seconds, less the time since `start` when it
        /// runs (`start` is NaN otherwise).
        case leaf(expected: Double, start: Double)
        /// A node that adds nothing: settled, skipped, or a leaf without history.
        case zero
        /// A group of `count` children: the longest (run at once) or the sum.
        case group(count: Int, together: Bool)
        /// The value above is a root's.
        case root
    }

    private(set) var steps: [Step] = []
    /// Leaves still to run that have no history.
    private(set) var unknown = 0

    /// The plan of `tree`: the walk `RunHistory.remaining` always made, children in order.
    mutating func build(_ tree: TreeModel, expected: (Int) -> Double?) {
        steps.removeAll(keepingCapacity: true)
        unknown = 0
        var roots: [Int] = []
        tree.forEachRoot {
            roots.append($0)
            return true
        }
        // Iterative: (node, children done, values on the stack when its children began).
        var stack: [(id: Int, visited: Bool, base: Int)] = []
        var depth = 0 // values the steps so far leave on the stack
        for root in roots {
            stack.append((root, false, 0))
            while let (id, visited, base) = stack.popLast() {
                let n = tree[id]
                if visited {
                    let together =
                        n.kind == "concurrent" || n.kind == "allSettled" || n.kind == "race" || n.kind == "and"
                    steps.append(.group(count: depth - base, together: together))
                    depth = base + 1
                } else if n.state == .completed || n.state == .cancelled || n.skipped {
                    steps.append(.zero)
                    depth += 1
                } else if !n.children.contains(where: { tree.contains(Int($0)) }) {
                    if let e = expected(id) {
                        let start = n.state == .executing ? tree.workStart(id) ?? .nan : .nan
                        steps.append(.leaf(expected: e, start: start))
                    } else {
                        unknown += 1
                        steps.append(.zero)
                    }
                    depth += 1
                } else {
                    stack.append((id, true, depth))
                    for k in n.children.reversed() where tree.contains(Int(k)) { stack.append((Int(k), false, 0)) }
                }
            }
            steps.append(.root)
            depth -= 1
        }
    }

    /// Seconds left at `now`: the largest root's value (0 without roots).
    func seconds(now: Double, scratch values: inout [Double]) -> Double {
        values.removeAll(keepingCapacity: true)
        var total = 0.0
        for step in steps {
            switch step {
            case .leaf(let e, let start):
                values.append(start.isNaN ? e : max(0, e - (now - start)))
            case .zero:
                values.append(0)
            case .group(let count, let together):
                let parts = values[(values.count - count)...]
                let value = together ? (parts.max() ?? 0) : parts.reduce(0, +)
                values.removeLast(count)
                values.append(value)
            case .root:
                total = max(total, values.removeLast())
            }
        }
        return total
    }
}

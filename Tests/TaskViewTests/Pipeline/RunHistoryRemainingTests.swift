import TaskGraph
import TestSupport
import Testing

@testable import TaskViewCore

/// `RunHistory.remaining` keeps its plan between calls: on a random tree, as events arrive
/// and time passes, it gives what the walk over the whole tree it replaced gave.
@Suite struct RunHistoryRemainingTests {
    static let kinds = ["sequential", "concurrent", "allSettled", "race", "and", "task", "task", "task"]
    static let names = ["a", "b", "c", "d"]

    /// The walk `remaining` made on every call before it kept a plan: iterative post-order
    /// over the whole tree, expected seconds by path.
    static func walk(_ history: RunHistory, _ tree: TreeModel, now: Double) -> (seconds: Double, unknown: Int) {
        var unknown = 0
        var total = 0.0
        var stack: [(id: Int, visited: Bool)] = []
        var values: [Int: Double] = [:]
        tree.forEachRoot {
            stack.append(($0, false))
            return true
        }
        let roots = Set(tree.roots)
        while let (id, visited) = stack.popLast() {
            let n = tree[id]
            let kids = n.children.map(Int.init).filter { tree.contains($0) }
            if n.state == .completed || n.state == .cancelled || n.skipped {
                values[id] = 0
            } else if kids.isEmpty {
                if let e = history.expected[RunHistory.path(of: id, in: tree)] {
                    values[id] = n.state == .executing && !n.startedAt.isNaN ? max(0, e - (now - n.startedAt)) : e
                } else {
                    unknown += 1
                    values[id] = 0
                }
            } else if !visited {
                stack.append((id, true))
                for k in kids { stack.append((k, false)) }
                continue
            } else {
                let parts = kids.map { values[$0] ?? 0 }
                let together = n.kind == "concurrent" || n.kind == "allSettled" || n.kind == "race" || n.kind == "and"
                values[id] = together ? (parts.max() ?? 0) : parts.reduce(0, +)
            }
            if roots.contains(id) { total = max(total, values[id] ?? 0) }
        }
        return (total, unknown)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theSameAsTheWholeWalkAsEventsArriveAndTimePasses(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        func pick<T>(_ list: [T]) -> T { list[Int(rng.next() % UInt64(list.count))] }
        // Expected seconds for most paths of up to three names under roots "a" and "b".
        var expected: [String: Double] = [:]
        for x in Self.names.prefix(2) {
            for y in Self.names {
                for z in Self.names where rng.next() % 4 != 0 {
                    expected[[x, y, z].joined(separator: "/")] = Double(rng.next() % 100) / 4
                }
                if rng.next() % 3 != 0 { expected[x + "/" + y] = Double(rng.next() % 100) / 4 }
            }
        }
        let history = RunHistory(expected: expected, runCount: 3)

        // 2 roots, 60 more nodes under random earlier groups (a later node can be added to a
        // settled group, and a group can end up without children: then it counts as a leaf).
        var events: [GraphEvent] = []
        var groups: [Int] = []
        var seq: UInt64 = 0
        func event(_ change: GraphChange, at time: Double = 0) {
            seq += 1
            events.append(GraphEvent(sequence: seq, time: time, change: change))
        }
        for id in 0..<62 {
            let kind = id < 2 ? "concurrent" : pick(Self.kinds)
            let parent = id < 2 ? nil : pick(groups)
            event(
                .added(
                    id: NodeID(id), kind: kind, name: Self.names[id < 2 ? id : Int(rng.next() % 4)], weight: 1,
                    parent: parent.map { NodeID($0) }, index: nil))
            if kind != "task" { groups.append(id) }
        }
        // Then state changes in a random order: each node starts, and most settle.
        var changes: [(id: Int, state: TaskState)] = []
        for id in 0..<62 {
            changes.append((id, .executing))
            switch rng.next() % 4 {
            case 0: break
            case 1: changes.append((id, .cancelled))
            default: changes.append((id, .completed))
            }
        }
        changes.shuffle(using: &rng)
        var time = 0.0
        for c in changes {
            time += Double(rng.next() % 8) / 4
            event(.stateChanged(id: NodeID(c.id), state: c.state, failed: false, message: nil), at: time)
        }

        var tree = TreeModel()
        var checked = 0
        var nonZero = 0
        for e in events {
            tree.absorb(e)
            // Several draws at one tree state (the plan kept) and at later times.
            for dt in [0.0, 0.5, 3, 40] {
                let now = tree.time + dt
                let got = try #require(history.remaining(in: tree, now: now))
                let want = Self.walk(history, tree, now: now)
                #expect(got.seconds == want.seconds, "seq \(tree.sequence) now \(now)")
                #expect(got.unknown == want.unknown, "seq \(tree.sequence) now \(now)")
                checked += 1
                if want.seconds > 0 { nonZero += 1 }
            }
        }
        // The comparison saw real estimates, not only zeros.
        #expect(checked == events.count * 4)
        #expect(nonZero > checked / 4)
        // An earlier copy of the tree (a frozen display) is still answered for its own state.
        var earlier = TreeModel()
        earlier.absorb(Array(events.prefix(80)))
        #expect(history.remaining(in: earlier, now: 5)?.seconds == Self.walk(history, earlier, now: 5).seconds)
        #expect(history.remaining(in: tree, now: 5)?.seconds == Self.walk(history, tree, now: 5).seconds)
    }

    @Test func changedFiguresAreUsedAtOnce() {
        var tree = TreeModel()
        tree.absorb([
            GraphEvent(
                sequence: 1, time: 0,
                change: .added(id: NodeID(0), kind: "sequential", name: "ci", weight: 1, parent: nil, index: nil)),
            GraphEvent(
                sequence: 2, time: 0,
                change: .added(id: NodeID(1), kind: "task", name: "a", weight: 1, parent: NodeID(0), index: 0)),
        ])
        var history = RunHistory(expected: ["ci/a": 10], runCount: 1)
        #expect(history.remaining(in: tree, now: 0)?.seconds == 10)
        history.expected["ci/a"] = 4
        #expect(history.remaining(in: tree, now: 0)?.seconds == 4)
    }
}

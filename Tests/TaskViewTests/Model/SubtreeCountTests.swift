import TaskGraph
import TestSupport
import Testing

@testable import TaskViewCore

/// Counts per state of every subtree, walked the slow way.
func walkedSubtree(_ tree: TreeModel, _ i: Int) -> SubtreeCounts {
    var c = SubtreeCounts.one(tree[i].display)
    for k in tree[i].children where tree.contains(Int(k)) && Int(tree[Int(k)].parent) == i {
        c &+= walkedSubtree(tree, Int(k))
    }
    return c
}

/// Every live node's kept subtree counts equal the walked ones.
func subtreeCountsAreExact(_ tree: TreeModel) -> Bool {
    for i in tree.nodes.ids where tree.contains(i) && tree[i].subtree != walkedSubtree(tree, i) { return false }
    return true
}

@Suite struct SubtreeCountTests {
    @Test func countsPerStateOfEverySubtree() {
        let tree = model(smallBuild()).tree
        // build: itself executing; compile (succeeded), a.c succeeded, b.c failed, link executing.
        #expect(tree[0].subtree.count(.executing) == 2)
        #expect(tree[0].subtree.count(.succeeded) == 2)
        #expect(tree[0].subtree.count(.failed) == 1)
        #expect(tree[1].descendantCounts == SubtreeCounts.one(.succeeded) &+ .one(.failed))
        #expect(tree[1].hasFailedDescendant)
        #expect(!tree[4].hasFailedDescendant)
        #expect(subtreeCountsAreExact(tree))
    }

    @Test func movesDropsSkipsAndSnapshotsKeepThemExact() {
        var s = smallBuild()
        s.add(5, "late", parent: 4)
        s.add(6, "later", parent: 5)
        s.adopt(5, by: 1, at: 0) // a subtree moves under compile
        #expect(subtreeCountsAreExact(model(s).tree))
        s.cancel(0, source: "keyboard") // link's never-executed children... become skipped
        s.emit(.dropped(ids: [NodeID(2)]))
        let tree = model(s).tree
        #expect(subtreeCountsAreExact(tree))
        #expect(tree[0].subtree.count(.skipped) == 2)
        var replica = GraphReplica()
        for e in s.events { replica.apply(e) }
        let seeded = TreeModel(snapshot: replica.snapshot)
        #expect(subtreeCountsAreExact(seeded))
        #expect(seeded[0].subtree == tree[0].subtree)
    }

    @Test func aNodeCannotMoveUnderItsOwnDescendant() {
        var s = smallBuild()
        s.adopt(0, by: 2, at: 0) // build under a.c: a loop; ignored
        let tree = model(s).tree
        #expect(tree.roots == [0])
        #expect(subtreeCountsAreExact(tree))
    }

    @Test func randomEventsKeepEveryCountExact() {
        var rng = SeededGenerator(seed: 0x9E37_79B9_7F4A_7C15)
        func next(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        var tree = TreeModel()
        var seq: UInt64 = 0
        var made = 0
        func emit(_ c: GraphChange) {
            seq += 1
            tree.absorb(GraphEvent(sequence: seq, time: Double(seq), change: c))
        }
        for step in 0..<3000 {
            switch next(10) {
            case 0, 1, 2:
                let parent = made > 0 && next(4) > 0 ? NodeID(next(made)) : nil
                emit(
                    .added(id: NodeID(made), kind: "task", name: "n\(made)", weight: 1, parent: parent, index: next(5)))
                made += 1
            case 3 where made > 1:
                emit(.parentSet(id: NodeID(next(made)), parent: NodeID(next(made)), index: next(3)))
            case 4...6 where made > 0:
                let states: [TaskState] = [.executing, .completed, .cancelled]
                emit(
                    .stateChanged(
                        id: NodeID(next(made)), state: states[next(3)], failed: next(2) == 0, message: "m"))
            case 7 where made > 0 && step % 7 == 0:
                emit(.dropped(ids: [NodeID(next(made)), NodeID(next(made))]))
            default:
                break
            }
            if step % 100 == 99 { #expect(subtreeCountsAreExact(tree), "after step \(step)") }
        }
        #expect(subtreeCountsAreExact(tree))
    }
}

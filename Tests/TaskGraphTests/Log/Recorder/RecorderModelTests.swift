import TestSupport
import Testing

@testable import TaskGraph

/// The recorder's column model keeps names only for named nodes: what its snapshots show
/// must still be every live node's current name.
@Suite struct RecorderModelTests {
    private func names(_ m: RecorderModel) -> [Int32: String] {
        Dictionary(uniqueKeysWithValues: m.liveNodesByID().map { ($0.id, $0.name) })
    }

    @Test func namedAndUnnamedNodesKeepTheirNames() {
        var m = RecorderModel()
        m.apply(.added(id: NodeID(0), kind: NodeKind.task, name: "fetch", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(4097), kind: NodeKind.task, name: "other chunk", weight: 1, parent: nil, index: nil))
        #expect(names(m) == [0: "fetch", 1: "", 4097: "other chunk"])
        #expect(m.liveCount == 3)
    }

    @Test func aDroppedThenReaddedIdTakesTheNewName() {
        var m = RecorderModel()
        m.apply(.added(id: NodeID(0), kind: NodeKind.task, name: "first", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil))
        m.apply(.dropped(ids: [NodeID(0), NodeID(1)]))
        #expect(names(m).isEmpty)
        m.apply(.added(id: NodeID(0), kind: NodeKind.task, name: "", weight: 1, parent: nil, index: nil))
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "second", weight: 1, parent: nil, index: nil))
        #expect(names(m) == [0: "", 1: "second"])
        m.apply(.added(id: NodeID(1), kind: NodeKind.task, name: "third", weight: 1, parent: nil, index: nil))
        #expect(names(m) == [0: "", 1: "third"])
    }

    /// A node with `needs` is two graph nodes (the `after` adapter and the task): the `end`
    /// summary counts it once, as taskview does (10,000 nodes showed 20,000 succeeded).
    @Test func theEndSummaryCountsANodeWithNeedsOnce() {
        let changes: [GraphChange] =
            [
                .added(id: NodeID(0), kind: NodeKind.concurrent, name: "ci", weight: 1, parent: nil, index: nil),
                .added(id: NodeID(1), kind: NodeKind.task, name: "core", weight: 1, parent: NodeID(0), index: 0),
                .added(id: NodeID(2), kind: NodeKind.after, name: "test", weight: 1, parent: NodeID(0), index: 1),
                .added(id: NodeID(3), kind: NodeKind.task, name: "test", weight: 1, parent: NodeID(2), index: 0),
            ] + (0..<4).map { .stateChanged(id: NodeID($0), state: .completed, failed: false, message: nil) }
        var m = RecorderModel()
        var l = LogModel()
        for c in changes {
            m.apply(c)
            l.apply(c)
        }
        #expect(m.endSummary(t: 1, lastRootSettle: 1).succeeded == 3)
        #expect(l.summary(duration: 1).succeeded == 3)
    }

    /// The final snapshot and the `end` summary come straight from the columns: on random
    /// histories (nodes added under random parents, moved, settled, failed, skipped, progress,
    /// dropped, added again) both must equal what `LogModel` writes and sums for the same events.
    @Test func snapshotAndSummaryEqualLogModelsOnRandomHistories() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            var m = RecorderModel()
            var l = LogModel()
            var ids: [Int] = []
            for _ in 0..<Int(rng.next() % 60) {
                let change = randomChange(&rng, ids: &ids)
                m.apply(change)
                l.apply(change)
            }
            var a = LogBuffer()
            var b = LogBuffer()
            #expect(m.writeSnapshot(into: &a, seq: 3, t: 1.5) == l.writeSnapshot(into: &b, seq: 3, t: 1.5))
            #expect(a.withBytes { Array($0) } == b.withBytes { Array($0) })
            let settle = rng.next() % 2 == 0 ? 0.75 : nil
            var expected = l.summary(duration: 0)
            let allSettled = l.rootIDs.allSatisfy { l[$0]?.state.isSettled ?? true }
            expected.duration = allSettled ? settle ?? 2 : 2
            #expect(m.endSummary(t: 2, lastRootSettle: settle) == expected)
        }
    }

    private func randomChange(_ rng: inout SeededGenerator, ids: inout [Int]) -> GraphChange {
        let known = ids
        let pick = { (rng: inout SeededGenerator) -> NodeID in NodeID(known[Int(rng.next() % UInt64(known.count))]) }
        switch ids.isEmpty ? 0 : rng.next() % 9 {
        case 8: // an id added again (its progress, message and children start afresh)
            return .added(id: pick(&rng), kind: NodeKind.task, name: "again", weight: 1, parent: nil, index: nil)
        case 0, 1:
            let id = ids.count < 30 ? ids.count : 5000 + ids.count // two chunks now and then
            let parent = !known.isEmpty && rng.next() % 4 != 0 ? pick(&rng) : nil
            ids.append(id)
            return .added(
                id: NodeID(id),
                kind: [NodeKind.scope, NodeKind.task, NodeKind.task, NodeKind.after][Int(rng.next() % 4)],
                name: rng.next() % 2 == 0 ? "n\(id)" : "", weight: rng.next() % 5 == 0 ? 2 : 1,
                parent: parent == NodeID(id) ? nil : parent, index: rng.next() % 3 == 0 ? 0 : nil)
        case 2:
            let state: [TaskState] = [.executing, .completed, .cancelled]
            let s = state[Int(rng.next() % 3)]
            let failed = s == .completed && rng.next() % 3 == 0
            return .stateChanged(id: pick(&rng), state: s, failed: failed, message: failed ? "boom" : nil)
        case 3: // often the same node several times in a row, as a scope's "N/M"
            let id = rng.next() % 2 == 0 ? NodeID(known.last!) : pick(&rng)
            let fraction = [0, 0.5, 1][Int(rng.next() % 3)]
            return .progress(id: id, progress: TaskProgress(fraction, info: rng.next() % 2 == 0 ? "1/2" : nil))
        case 4:
            let (a, b) = (pick(&rng), pick(&rng))
            return a == b ? .weightChanged(id: a, weight: 3) : .parentSet(id: a, parent: b, index: 0)
        case 5:
            return .dropped(ids: [pick(&rng)])
        default:
            return .stateChanged(id: pick(&rng), state: .completed, failed: false, message: nil)
        }
    }
}

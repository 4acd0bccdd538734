import TaskViewTerminal
import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// Ids near 2^31 and 2^53 (a long-running program, a hostile log or socket): every table
/// and every pass follows the nodes present, never the id range. Memory is checked through
/// the slots the tables hold; a pass over the id range would not finish (or not fit).
@Suite struct HugeIDTests {
    static let near31 = (1 << 31) - 7
    static let near53 = (1 << 53) - 3
    /// The largest id the dashboard keeps (it stores ids as Int32).
    static let top = Int(Int32.max)

    /// A tree of three roots with huge ids, one failed, and a small one.
    func hugeTree() -> TreeModel {
        var s = EventScript()
        s.emit(
            .added(
                id: NodeID(Self.top), kind: NodeKind.concurrent, name: "far root", weight: 1,
                parent: nil, index: nil))
        s.emit(
            .added(
                id: NodeID(Self.near31), kind: NodeKind.task, name: "far child", weight: 1,
                parent: NodeID(Self.top), index: 0))
        // Ids no graph hands out (beyond Int32, negative) name no node: ignored, no trap.
        s.emit(
            .added(
                id: NodeID(Self.near53), kind: NodeKind.task, name: "beyond", weight: 1,
                parent: NodeID(Self.top), index: 0))
        s.emit(.added(id: NodeID(-5), kind: NodeKind.task, name: "negative", weight: 1, parent: nil, index: nil))
        s.emit(.progress(id: NodeID(Self.near53), progress: TaskProgress(0.5)))
        s.emit(.added(id: NodeID(3), kind: NodeKind.task, name: "small", weight: 1, parent: nil, index: nil))
        s.emit(.stateChanged(id: NodeID(Self.near31), state: .executing, failed: false, message: nil))
        s.emit(.stateChanged(id: NodeID(Self.near31), state: .completed, failed: true, message: "boom"))
        var tree = TreeModel()
        tree.absorb(s.events)
        return tree
    }

    @Test func theTreeHoldsOnlyTheNodesPresent() {
        let tree = hugeTree()
        #expect(tree.nodes.storedCount < 5_000)
        #expect(tree.roots == [Self.top, 3])
        #expect(tree.liveCount == 3 && !tree.contains(Self.near53) && tree[Self.top].children.count == 1)
        #expect(Array(tree.nodes.ids).filter { tree.contains($0) } == [3, Self.near31, Self.top])
    }

    @Test func aLadderOfIdsDoesNotDoubleTheTablePerNode() {
        // Each id just inside the old growth rule (below twice the table plus 4,096): eight
        // nodes used to make the table ~1 M slots; 30 would make it 2^42.
        var tree = TreeModel()
        var id = 4_095
        for k in 0..<8 {
            tree.absorb(
                GraphEvent(
                    sequence: UInt64(k + 1), time: 0,
                    change: .added(
                        id: NodeID(id), kind: NodeKind.task, name: "n\(k)", weight: 1, parent: nil, index: nil)))
            id = 2 * (id + 1) + 4_095 - 1
        }
        #expect(tree.liveCount == 8)
        #expect(tree.nodes.storedCount < 20_000)
    }

    @Test func aFilterOverHugeIdsKeepsOneEntryPerMatch() {
        var model = DashboardModel(title: "huge")
        model.tree = hugeTree()
        model.view.filter = "child"
        model.refreshDerived()
        let mask = try! #require(model.filterCache.mask)
        #expect(mask.storedCount < 5_000)
        #expect(mask[Self.near31] && mask[Self.top] && !mask[3])
        let d = model.displayTree()
        #expect(d.first() == RowIndex(Self.top))
        #expect(d.next(RowIndex(Self.top)) == RowIndex(Self.near31))
        #expect(d.next(RowIndex(Self.near31)) == nil)
    }

    @Test func theExitSummaryListsFailedNodesWithoutWalkingTheIdRange() {
        var model = DashboardModel(title: "huge")
        model.tree = hugeTree()
        let lines = ExitSummary.lines(model: model)
        #expect(lines.contains("Failed:"))
        #expect(lines.contains("  #\(Self.near31) far child: failed: boom"))
    }

    @Test func theHeadlessSummaryPrintsTheHugeTree() {
        let lines = HeadlessSummary(tree: hugeTree()).lines(root: nil)
        #expect(lines.contains("#\(Self.top) far root: not executed"))
        #expect(lines.contains("`- #\(Self.near31) far child: failed: boom"))
    }

    @Test func aLogWithIdsNear2To31LoadsSmallAndIdsNear2To53AreRefused() throws {
        let text =
            HostileLogTests.goodHeader + "\n"
            + "{\"seq\":1,\"t\":0,\"ev\":\"add\",\"id\":\(Self.near31),\"kind\":\"task\",\"name\":\"x\",\"weight\":1}\n"
            + "{\"seq\":2,\"t\":0,\"ev\":\"add\",\"id\":5,\"kind\":\"task\",\"name\":\"y\",\"weight\":1,\"parent\":\(Self.near31),\"index\":0}\n"
        let log = try LogReader.parse(Array(text.utf8), name: "big")
        #expect(log.finalModel.nodes.count == 2)
        #expect(log.finalModel.rootIDs == [Self.near31])
        let lines = ReplaySource.headlessLines(log)
        #expect(lines.contains("#\(Self.near31) x: not executed"))
        let bad =
            HostileLogTests.goodHeader + "\n"
            + "{\"seq\":1,\"t\":0,\"ev\":\"add\",\"id\":\(Self.near53),\"kind\":\"task\",\"name\":\"x\",\"weight\":1}\n"
        #expect(throws: (any Error).self) { try LogReader.parse(Array(bad.utf8), name: "bad") }
    }

    @Test func anAttachStreamWithHugeIdsMapsToDenseLocalIds() throws {
        var stream = LogStream(name: "s")
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        let base = Self.near31 - 10
        let text =
            AttachLines.header() + AttachLines.snapshot(seq: 1, base: base)
            + "{\"seq\":2,\"t\":1,\"ev\":\"add\",\"id\":\(Self.near31),\"kind\":\"task\",\"name\":\"late\",\"weight\":1,\"parent\":\(base),\"index\":2}\n"
        for item in try stream.feed(Array(text.utf8)) { a.apply(item, program: p, tree: &tree, now: 0) }
        #expect(tree.liveCount == 5) // the program row and four nodes
        #expect(tree.nodes.count <= 8)
        let root = Int(tree[tree.roots[0]].children[0])
        #expect(a.target(of: root)?.remote == base)
        #expect(tree[root].children.map { tree[Int($0)].name } == ["job a", "job b", "late"])
        // An id beyond what a graph can hand out ends the stream with an error, at once.
        var bad = LogStream(name: "s")
        let far =
            AttachLines.header()
            + "{\"seq\":1,\"t\":0,\"ev\":\"add\",\"id\":\(Self.near53),\"kind\":\"task\",\"name\":\"x\",\"weight\":1}\n"
        #expect(throws: StreamError.self) { _ = try bad.feed(Array(far.utf8)) }
    }

    @Test func fuzzedAttachStreamsWithScatteredIdsStaySmall() throws {
        // 300 streams of adds, progress and drops whose ids are scattered over 0...2^31-1
        // and beyond: whatever the stream says, the tree holds a slot per node it names.
        var rng = SeededGenerator(seed: 14)
        let ranges: [ClosedRange<Int>] = [0...50, 16_000_000...16_777_216, 0...Int(Int32.max), (1 << 52)...(1 << 53)]
        for round in 0..<300 {
            var text = AttachLines.header()
            var seq = 0
            var added: [Int] = []
            for _ in 0..<Int(rng.next() % 40) {
                seq += 1
                let range = ranges[Int(rng.next() % UInt64(ranges.count))]
                let id = range.lowerBound + Int(rng.next() % UInt64(range.upperBound - range.lowerBound + 1))
                switch rng.next() % 4 {
                case 0 where !added.isEmpty:
                    text +=
                        "{\"seq\":\(seq),\"t\":0,\"ev\":\"progress\",\"id\":\(added.randomElement(using: &rng)!),\"fraction\":0.5}\n"
                case 1 where !added.isEmpty:
                    text += "{\"seq\":\(seq),\"t\":0,\"ev\":\"drop\",\"ids\":[\(added.randomElement(using: &rng)!)]}\n"
                default:
                    let parent =
                        added.isEmpty || rng.next() % 2 == 0
                        ? "" : ",\"parent\":\(added.randomElement(using: &rng)!),\"index\":0"
                    text +=
                        "{\"seq\":\(seq),\"t\":0,\"ev\":\"add\",\"id\":\(id),\"kind\":\"task\",\"name\":\"n\",\"weight\":1\(parent)}\n"
                    added.append(id)
                }
            }
            var stream = LogStream(name: "fuzz \(round)")
            var a = AttachTree()
            var tree = TreeModel()
            let p = a.addProgram(name: "s", pid: nil)
            // Ids over 2^31 - 1 end the stream with an error; whatever came first is kept.
            var items: [StreamItem] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                guard let got = try? stream.feed(Array((line + "\n").utf8)) else { break }
                items += got
            }
            for item in items { a.apply(item, program: p, tree: &tree, now: 0) }
            #expect(tree.nodes.storedCount <= 1 + seq, "round \(round)")
            // Filtering and the exit summary walk the nodes, not the ids.
            var model = DashboardModel(title: "fuzz")
            model.tree = tree
            model.view.filter = "n"
            model.refreshDerived()
            #expect((model.filterCache.mask?.storedCount ?? 0) <= 1 + seq)
            _ = ExitSummary.lines(model: model)
        }
    }
}

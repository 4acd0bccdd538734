import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// A viewer that fell behind folds superseded progress (`ProgressFold`): what it ends with
/// must be what applying every event gives, with one progress event per node and batch.
@Suite struct ProgressFoldTests {
    /// Every field a row shows.
    func describe(_ tree: TreeModel) -> [String] {
        tree.nodes.ids.filter { tree.contains($0) }.map { i in
            let n = tree[i]
            return "\(i) \(n.name) p\(n.parent) \(n.children) \(n.state) f\(n.failed) \(n.fraction) \(n.info ?? "-") "
                + "\(n.message ?? "-") b\(n.startedAt) e\(n.endedAt) \(n.display)"
        }
    }

    /// A program's header, then `nodes` tasks under a root, then a burst: 40 progress events
    /// per node in random order, with each node's end (one failed, the others succeeded)
    /// somewhere in it, some progress after the end, split into stretches as reads would.
    func burst(nodes: Int, seed: UInt64) throws -> (items: [StreamItem], progress: Int) {
        var rng = SplitMix64(seed: seed)
        var seq: UInt64 = 0
        func event(_ t: Double, _ change: GraphChange) -> GraphEvent {
            seq += 1
            return GraphEvent(sequence: seq, time: t, change: change)
        }
        var events = [
            event(0, .added(id: NodeID(0), kind: "concurrent", name: "root", weight: 1, parent: nil, index: nil)),
            event(0, .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil)),
        ]
        for i in 1...nodes {
            events.append(
                event(0, .added(id: NodeID(i), kind: "task", name: "n\(i)", weight: 1, parent: NodeID(0), index: i - 1))
            )
            events.append(event(0, .stateChanged(id: NodeID(i), state: .executing, failed: false, message: nil)))
        }
        var script: [GraphChange] = []
        for i in 1...nodes {
            for k in 1...40 {
                script.append(.progress(id: NodeID(i), progress: TaskProgress(Double(k) / 40, info: "\(k)")))
            }
        }
        script.shuffle(using: &rng)
        var progress = script.count
        for i in 1...nodes {
            let at = Int(rng.next() % UInt64(script.count))
            script.insert(
                .stateChanged(id: NodeID(i), state: .completed, failed: i == 2, message: i == 2 ? "boom" : nil), at: at)
        }
        // A late report after its node ended (what a racing reporter sends).
        script.append(.progress(id: NodeID(1), progress: TaskProgress(0.3, info: "late")))
        progress += 1
        for (k, c) in script.enumerated() { events.append(event(Double(k) / 1000, c)) }
        var items = try streamItems(AttachLines.header())
        var rest = events[...]
        while !rest.isEmpty {
            let n = Int(rng.next() % 50) + 1
            items.append(.events(Array(rest.prefix(n))))
            rest = rest.dropFirst(n)
        }
        return (items, progress)
    }

    func apply(_ items: [StreamItem]) -> TreeModel {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        for item in items { a.apply(item, program: p, tree: &tree, now: 0) }
        a.refreshRows(tree: &tree, now: 0)
        return tree
    }

    func progressCount(_ items: [StreamItem]) -> Int {
        items.reduce(0) { sum, item in
            guard case .events(let es) = item else { return sum }
            return sum + es.filter { if case .progress = $0.change { true } else { false } }.count
        }
    }

    @Test func aFoldedBurstEndsAsApplyingEveryEvent() throws {
        for seed: UInt64 in [1, 2, 3] {
            let (items, progress) = try burst(nodes: 20, seed: seed)
            #expect(progressCount(items) == progress)
            var folded = items
            var fold = ProgressFold()
            fold.reset()
            for k in folded.indices.reversed() { folded[k] = fold.fold(folded[k], program: 0) }
            // One progress event is left per node: the last one.
            #expect(progressCount(folded) == 20)
            #expect(fold.dropped == progress - 20)
            let all = apply(items)
            let few = apply(folded)
            #expect(describe(few) == describe(all))
            #expect(few.counts == all.counts)
            #expect(all[all.roots[0]].children.count == 1) // the program's root, with 20 tasks
        }
    }

    @Test func nothingIsFoldedAcrossABarrierOrBetweenPrograms() throws {
        let p1 = GraphEvent(sequence: 1, time: 1, change: .progress(id: NodeID(5), progress: TaskProgress(0.1)))
        let p2 = GraphEvent(sequence: 2, time: 2, change: .progress(id: NodeID(5), progress: TaskProgress(0.2)))
        var fold = ProgressFold()
        fold.reset()
        // From the batch's end: program 0's later report, a resync, then program 1's.
        let later = fold.fold(.events([p2]), program: 0)
        _ = fold.fold(.resync(skipped: 3), program: 0)
        let beforeResync = fold.fold(.events([p1]), program: 0)
        let otherProgram = fold.fold(.events([p1]), program: 1)
        fold.barrier(program: 1)
        #expect(progressCount([later, beforeResync, otherProgram]) == 3)
        #expect(fold.dropped == 0)
        // Within one program and no barrier, the earlier one goes.
        fold.reset()
        _ = fold.fold(.events([p2]), program: 0)
        let folded = fold.fold(.events([p1, p2]), program: 0)
        #expect(progressCount([folded]) == 0)
        #expect(fold.dropped == 2)
    }
}

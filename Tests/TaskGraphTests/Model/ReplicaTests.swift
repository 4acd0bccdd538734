import TestSupport
import Testing

@testable import TaskGraph

/// Builds random task trees on a virtual clock from a seeded generator.
struct RandomProgram {
    var rng: SeededGenerator
    let graph: Graph
    var tasks: [AnyGraphTask] = []
    /// Whether `then` closures may return tasks built before (adopted late).
    let lateAdoption: Bool

    init(seed: UInt64, graph: Graph) {
        rng = SeededGenerator(seed: seed)
        self.graph = graph
        lateAdoption = graph.retention == nil
    }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    mutating func leaf() -> GraphTask<Int, TestError> {
        let after = Double(Int.random(in: 1...30, using: &rng)) / 10
        let t = timed(1, after: after, name: "leaf\(tasks.count)", graph: graph, fail: chance(0.1))
        tasks.append(t)
        return t
    }

    mutating func tree(depth: Int) -> GraphTask<Int, TestError> {
        if depth == 0 || chance(0.3) { return weighted(leaf()) }
        let t: GraphTask<Int, TestError>
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            let kids = children(depth)
            t = GraphTask.sequential(kids, graph: graph).mapResult { $0.reduce(0, +) }
        case 1:
            let kids = children(depth)
            t = GraphTask.concurrent(kids, graph: graph).mapResult { $0.reduce(0, +) }
        case 2:
            let kids = children(depth)
            t = GraphTask.allSettled(kids, graph: graph).mapOutcome { r -> Result<Int, TestError> in
                switch r {
                case .success(let all): .success(all.count)
                }
            }
        default:
            let first = tree(depth: depth - 1)
            if !lateAdoption {
                // With retention, the closure makes its task when called (late adoption of a
                // dropped root is covered by GraphTests).
                let g = graph
                let name = "late\(tasks.count)"
                t = first.then { v in timed(v, after: 0.5, name: name, graph: g) }
            } else if chance(0.5) {
                t = first.then(tree(depth: depth - 1))
            } else {
                let second = tree(depth: depth - 1)
                t = first.then { _ in second } // adopted when the first link succeeds
            }
        }
        tasks.append(t)
        return weighted(t)
    }

    mutating func children(_ depth: Int) -> [GraphTask<Int, TestError>] {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in tree(depth: depth - 1) }
    }

    mutating func weighted(_ t: GraphTask<Int, TestError>) -> GraphTask<Int, TestError> {
        if chance(0.2) { t.setWeight(Double(Int.random(in: 0...3, using: &rng))) }
        return t
    }

    /// Runs the program: a few roots, the clock moved in random steps, random cancels.
    /// Calls `check` after every step.
    mutating func run(_ clock: VirtualClock, check: () -> Void) {
        let roots = (0..<Int.random(in: 1...3, using: &rng)).map { _ in tree(depth: 4) }
        for r in roots where chance(0.9) { r.execute() }
        check()
        var steps = 0
        while clock.nextDue != nil && steps < 200 {
            steps += 1
            clock.advance(by: Double(Int.random(in: 1...10, using: &rng)) / 10)
            if chance(0.15), !tasks.isEmpty {
                let victim = tasks[Int.random(in: 0..<tasks.count, using: &rng)]
                if chance(0.5) { victim.cancel() } else { graph.cancel(victim.id, source: "keyboard") }
            }
            check()
        }
    }
}

/// The snapshot rebuilt from events (`GraphReplica`) equals the graph's own snapshot.
@Suite struct ReplicaTests {
    @Test(arguments: 0..<8)
    func replicaFromEventsEqualsSnapshot(batch: Int) {
        for seed in UInt64(batch * 40)..<UInt64(batch * 40 + 40) {
            let clock = VirtualClock()
            let graph =
                seed % 4 == 0
                ? Graph(clock: clock, retention: Retention(maxFinishedRoots: 1))
                : Graph(clock: clock)
            let log = EventLog(graph)
            var replica = GraphReplica()
            var applied = 0
            var program = RandomProgram(seed: seed, graph: graph)
            var mismatches = 0
            program.run(clock) {
                let events = log.events
                for e in events[applied...] { replica.apply(e) }
                applied = events.count
                if replica.snapshot != graph.snapshot() { mismatches += 1 }
            }
            #expect(mismatches == 0, "seed \(seed)")
            let snap = graph.snapshot()
            #expect(log.replica.snapshot == snap, "seed \(seed)")
            #expect(!snap.nodes.values.contains { $0.state == .executing }, "seed \(seed)")
            checkConsistency(snap, seed: seed)
        }
    }

    @Test func replicaFromAMidwaySnapshotEqualsSnapshot() {
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        var program = RandomProgram(seed: 99, graph: graph)
        let items = Locked<[GraphEvent]>([])
        var start: GraphSnapshot?
        var step = 0
        program.run(clock) {
            step += 1
            if step == 2 {
                start = graph.snapshotAndObserve { e in items.withLock { $0.append(e) } }.snapshot
            }
        }
        #expect(step > 2)
        guard let start else { return }
        var replica = GraphReplica(start)
        let events = items.get
        #expect(events.first?.sequence == start.sequence + 1)
        for e in events { replica.apply(e) }
        #expect(replica.snapshot == graph.snapshot())
    }
}

/// Invariants any finished snapshot satisfies.
func checkConsistency(_ snap: GraphSnapshot, seed: UInt64) {
    for node in snap.nodes.values {
        let kids = node.children.compactMap { snap[$0] }
        for k in kids { #expect(k.parent == node.id, "seed \(seed)") }
        switch (node.kind, node.state, node.failed) {
        case ("sequential", .completed, false), ("concurrent", .completed, false):
            #expect(kids.allSatisfy { $0.state == .completed && !$0.failed }, "seed \(seed) node \(node.id)")
        case ("allSettled", .completed, _):
            #expect(kids.allSatisfy { $0.state.isSettled }, "seed \(seed) node \(node.id)")
        case (_, .cancelled, _):
            #expect(!kids.contains { $0.state == .executing }, "seed \(seed) node \(node.id)")
        case (_, .notExecuted, _):
            #expect(
                kids.allSatisfy { $0.state == .notExecuted || $0.state == .cancelled || $0.kind == "pending" },
                "seed \(seed) node \(node.id)")
        default:
            break
        }
        if node.state == .completed && !node.failed { #expect(node.progress.fraction == 1, "seed \(seed)") }
    }
}

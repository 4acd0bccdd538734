import Testing

@testable import TaskGraph

/// 100,000-link chains run, cancel and are released in constant stack (8 MiB thread).
@Suite struct DepthTests {
    static let links = 100_000

    @Test func thenChainOfClosuresRunsAndIsReleased() {
        let result = Locked<[Int]>([])
        onBigStack {
            let (g, _) = virtualGraph()
            var t = GraphTask<Int, TestError>.succeed(0, graph: g)
            for _ in 0..<Self.links { t = t.then { v in .succeed(v + 1, graph: g) } }
            t.success { v in result.withLock { $0.append(v) } }.execute()
            result.withLock { $0.append(t.state == .completed ? 1 : 0) }
            t = .succeed(0, graph: g) // releases the chain here, on the big stack
        }
        #expect(result.get == [Self.links, 1])
    }

    /// A million nested links (the deepest chain a log may hold): built, run, then the
    /// chain and its graph released, all on an 8 MiB stack.
    @Test func aMillionLinkChainRunsAndIsReleasedWithItsGraph() {
        let result = Locked<[Int]>([])
        onBigStack {
            var graph: Graph? = Graph(clock: VirtualClock())
            var t: GraphTask<Int, Never>? = .succeed(0, graph: graph!)
            for _ in 0..<1_000_000 { t = t!.mapResult { $0 + 1 } }
            t!.success { v in result.withLock { $0.append(v) } }.execute()
            result.withLock { $0.append(graph!.snapshot().nodes.count) }
            t = nil
            graph = nil
            result.withLock { $0.append(graph == nil ? 1 : 0) }
        }
        #expect(result.get == [1_000_000, 1_000_001, 1])
    }

    @Test func thenChainOfTasksRunsAndIsReleased() {
        let result = Locked<[Int]>([])
        onBigStack {
            let (g, _) = virtualGraph()
            var t = GraphTask<Int, TestError>.succeed(0, graph: g)
            for i in 1...Self.links { t = t.then(GraphTask<Int, TestError>.succeed(i, graph: g)) }
            t.success { v in result.withLock { $0.append(v) } }.execute()
            t = .succeed(0, graph: g)
        }
        #expect(result.get == [Self.links])
    }

    @Test func sequentialRunsAndIsReleased() {
        let result = Locked<[Int]>([])
        onBigStack {
            let (g, _) = virtualGraph()
            let p = Recorder<Double>()
            var seq: GraphTask<[Int], TestError>? = GraphTask.sequential(
                (0..<Self.links).map { GraphTask<Int, TestError>.succeed($0, graph: g) })
            seq!.progress { p.add($0.fraction) }.success { v in result.withLock { $0.append(v.count) } }.execute()
            result.withLock { $0.append(p.count == Self.links ? 1 : 0) }
            seq = nil
        }
        #expect(result.get == [Self.links, 1])
    }

    @Test
    func neverExecutedThenChainIsReleased() {
        let done = Counter()
        onBigStack {
            let (g, _) = virtualGraph()
            var t: GraphTask<Int, TestError>? = .succeed(0, graph: g)
            for _ in 0..<Self.links { t = t!.then { v in .succeed(v + 1, graph: g) } }
            if t?.state == .notExecuted { t = nil }
            if t == nil { done.bump() }
        }
        #expect(done.value == 1)
    }

    @Test
    func neverExecutedTaskFormThenChainIsReleased() {
        let done = Counter()
        onBigStack {
            let (g, _) = virtualGraph()
            var t: GraphTask<Int, TestError>? = .succeed(0, graph: g)
            for i in 0..<Self.links { t = t!.then(GraphTask<Int, TestError>.succeed(i, graph: g)) }
            if t?.state == .notExecuted { t = nil }
            if t == nil { done.bump() }
        }
        #expect(done.value == 1)
    }

    @Test func neverExecutedSequentialIsReleased() {
        let done = Counter()
        onBigStack {
            let (g, _) = virtualGraph()
            var seq: GraphTask<[Int], TestError>? = GraphTask.sequential(
                (0..<Self.links).map { GraphTask<Int, TestError>.succeed($0, graph: g) })
            if seq?.state == .notExecuted { seq = nil }
            if seq == nil { done.bump() }
        }
        #expect(done.value == 1)
    }

    @Test
    func neverExecutedNestedSequentialsAreReleased() {
        let done = Counter()
        onBigStack {
            let (g, _) = virtualGraph()
            var t: GraphTask<[Int], TestError>? = .succeed([], graph: g)
            for _ in 0..<Self.links { t = GraphTask.sequential([t!]).mapResult { $0.first ?? [] } }
            if t?.state == .notExecuted { t = nil }
            if t == nil { done.bump() }
        }
        #expect(done.value == 1)
    }

    @Test func executingChainIsCancelledFromTheTopAndFromTheBottom() {
        let result = Locked<[TaskState]>([])
        onBigStack {
            let (g, _) = virtualGraph()
            for fromBottom in [false, true] {
                let bottom = forever(graph: g)
                var t = bottom
                for _ in 0..<Self.links { t = t.then { v in .succeed(v + 1, graph: g) } }
                t.execute()
                if fromBottom { bottom.cancel() } else { t.cancel() }
                result.withLock { $0 += [t.state, bottom.state] }
                t = .succeed(0, graph: g)
            }
        }
        #expect(result.get == [.cancelled, .cancelled, .cancelled, .cancelled])
    }
}

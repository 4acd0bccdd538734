import Dispatch
import Foundation
import TestSupport
import Testing

@testable import TaskGraph

/// Per-index handler counts, safe from any thread.
final class Tally: Sendable {
    private let counts: Locked<[String: [Int]]>
    let size: Int
    init(size: Int) {
        self.size = size
        counts = Locked([:])
    }
    func bump(_ key: String, _ i: Int) {
        counts.withLock { c in
            if c[key] == nil { c[key] = Array(repeating: 0, count: size) }
            c[key]![i] += 1
        }
    }
    func get(_ key: String) -> [Int] { counts.withLock { $0[key] ?? Array(repeating: 0, count: size) } }
}

/// Checks that every node's recorded states form a path of the state machine.
func statesMoveForward(_ log: EventLog) -> [NodeID] {
    var last: [NodeID: TaskState] = [:]
    var bad: [NodeID] = []
    for change in log.changes {
        guard case .stateChanged(let id, let s, _, _) = change else { continue }
        let from = last[id] ?? .notExecuted
        let ok: Bool
        switch (from, s) {
        case (.notExecuted, .executing), (.notExecuted, .cancelled),
            (.executing, .completed), (.executing, .cancelled):
            ok = true
        default:
            ok = false
        }
        if !ok { bad.append(id) }
        last[id] = s
    }
    return bad
}

/// Many tasks completed, cancelled and observed from several threads at once. Run it under
/// ThreadSanitizer with `swift test --sanitize=thread --filter StressTests`.
@Suite struct StressTests {
    static let threads = 4

    @Test func pendingTasksResolvedAndCancelledFromSeveralThreads() {
        let n = 3000
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let tally = Tally(size: n)
        var pairs: [(GraphTask<Int, TestError>, Resolver<Int, TestError>)] = []
        for i in 0..<n {
            let (t, r) = GraphTask<Int, TestError>.pending(name: "p\(i)", graph: g)
            t.success { _ in tally.bump("success", i) }
                .failure { _ in tally.bump("failure", i) }
                .completion { _ in tally.bump("completion", i) }
                .onCancel { tally.bump("cancel", i) }
            pairs.append((t, r))
        }
        let all = pairs
        DispatchQueue.concurrentPerform(iterations: Self.threads) { worker in
            var rng = SeededGenerator(seed: UInt64(worker))
            for i in (0..<n).shuffled(using: &rng) {
                let (t, r) = all[i]
                switch worker {
                case 0:
                    if i % 7 == 0 { r.fail(TestError(code: i)) } else { r.succeed(i) }
                case 1:
                    if i % 3 == 0 { t.cancel() }
                case 2:
                    if i % 5 == 0 { g.cancel(t.id, source: "keyboard") }
                    t.completion { _ in tally.bump("late", i) }
                default:
                    _ = t.state
                    _ = t.currentProgress
                    r.progress(TaskProgress(0.5))
                    if i % 100 == 0 { _ = g.snapshot() }
                }
            }
        }
        let success = tally.get("success")
        let failure = tally.get("failure")
        let completion = tally.get("completion")
        let cancel = tally.get("cancel")
        let late = tally.get("late")
        var problems: [String] = []
        for i in 0..<n {
            let t = all[i].0
            let done = success[i] + failure[i]
            switch t.state {
            case .completed:
                if done != 1 || completion[i] != 1 || cancel[i] != 0 || late[i] != 1 {
                    problems.append("completed \(i)")
                }
                if (failure[i] == 1) != (i % 7 == 0) { problems.append("wrong outcome \(i)") }
            case .cancelled:
                if done != 0 || completion[i] != 0 || cancel[i] != 1 || late[i] != 0 {
                    problems.append("cancelled \(i)")
                }
            default:
                problems.append("unsettled \(i)")
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(statesMoveForward(log).isEmpty)
        #expect(log.replica.snapshot == g.snapshot())
        #expect(log.events.map(\.sequence) == Array(1...UInt64(log.events.count)))
    }

    /// Issue 11: threads running their own tasks on one graph (lock stripes) keep the
    /// observable contract: the observed events rebuild the snapshot exactly, in gapless
    /// order, with a recorder attached too, and no handler fires twice.
    @Test func fourThreadsHammeringOneGraphKeepEventsAndSnapshotInStep() throws {
        let g = Graph()
        let log = EventLog(g)
        let tmp = TemporaryDirectory("taskgraph-stress")
        defer { tmp.remove() }
        let path = tmp.file("log.tglog")
        let recording = try g.record(to: path, producer: "stress")
        defer { unlink(path) }
        let rounds = 300
        let (completion, cancel) = OneGraphStress.hammer(g, rounds: rounds)
        g.flushObservers()
        let final = g.snapshot()
        recording.cancel()
        log.observation.cancel()
        // Every round's last task settled exactly once: one handler or the other.
        let wrong = (0..<completion.count).filter { completion[$0] + cancel[$0] != 1 }
        #expect(
            wrong.isEmpty, "rounds whose handlers fired \(wrong.prefix(5).map { completion[$0] + cancel[$0] }) times")
        #expect(final.nodes.count > OneGraphStress.threads * rounds * 4)
        #expect(log.events.map(\.sequence) == Array(1...UInt64(log.events.count)))
        let rebuilt = log.replica.snapshot
        let differ =
            final.nodes.keys.filter { rebuilt.nodes[$0] != final.nodes[$0] }
            + rebuilt.nodes.keys.filter { final.nodes[$0] == nil }
        #expect(
            differ.isEmpty,
            "\(differ.count) nodes differ, e.g. \(differ.prefix(2).map { (rebuilt.nodes[$0], final.nodes[$0]) })")
        #expect(rebuilt.roots == final.roots)
        #expect(rebuilt.sequence == final.sequence)
        #expect(statesMoveForward(log).isEmpty)
        // Ids were claimed in blocks: every node has exactly one id.
        #expect(Set(final.nodes.keys).count == final.nodes.count)
    }

    /// A task made on another thread joins the stripe of the composite that adopts it, with
    /// its subtree and records (so their locks are one), and the graph stays consistent.
    @Test func tasksMadeOnOtherThreadsMoveToTheirParentsStripe() {
        let g = Graph()
        let log = EventLog(g)
        let made = Locked<[GraphTask<Int, TestError>]>([])
        OneGraphStress.onThreads(2) { w in
            let a = GraphTask<Int, TestError>(name: "a\(w)", graph: g) { s, _ in s(w) }
            let b = GraphTask<Int, TestError>(name: "b\(w)", graph: g) { s, _ in s(w) }
            made.withLock {
                $0.append(GraphTask.sequential([a, b], name: "inner\(w)", graph: g, combine: { $0.reduce(0, +) }))
            }
        }
        let inner = made.get
        let outer = GraphTask.concurrent(inner, name: "outer", graph: g)
        let later = outer.then(name: "later") { v in
            // Made on yet another thread by the closure, adopted by `later`.
            let box = Locked<GraphTask<Int, TestError>?>(nil)
            OneGraphStress.onThreads(1) { _ in box.withLock { $0 = .succeed(v.count, graph: g) } }
            return box.get!
        }
        let result = Locked<Int?>(nil)
        later.success { v in result.withLock { $0 = v } }.execute()
        #expect(result.get == 2)
        let stripe = outer._stripe.load(ordering: .relaxed)
        for t in inner { #expect(t._stripe.load(ordering: .relaxed) == stripe) }
        #expect(later._stripe.load(ordering: .relaxed) == stripe)
        #expect(log.replica.snapshot == g.snapshot())
        let snap = g.snapshot()
        #expect(snap.roots == [later.id])
        #expect(snap[outer.id]?.children == inner.map(\.id))
        #expect(snap[inner[0].id]?.state == .completed && snap[inner[0].id]?.children.count == 2)
    }

    @Test func executeRacingCancel() {
        let n = 3000
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let tally = Tally(size: n)
        let tasks = (0..<n).map { i in
            GraphTask<Int, TestError>(graph: g) { s, _ in
                tally.bump("body", i)
                s(i)
            }
            .success { _ in tally.bump("success", i) }
            .onCancel { tally.bump("cancel", i) }
        }
        DispatchQueue.concurrentPerform(iterations: Self.threads) { worker in
            var rng = SeededGenerator(seed: UInt64(worker + 10))
            for i in (0..<n).shuffled(using: &rng) {
                switch worker {
                case 0, 1: tasks[i].execute()
                case 2: if i % 2 == 0 { tasks[i].cancel() }
                default: tasks[i].success { _ in tally.bump("late", i) }
                }
            }
        }
        let body = tally.get("body")
        let success = tally.get("success")
        let cancel = tally.get("cancel")
        let late = tally.get("late")
        var problems: [Int] = []
        for i in 0..<n {
            switch tasks[i].state {
            case .completed:
                if body[i] != 1 || success[i] != 1 || cancel[i] != 0 || late[i] != 1 { problems.append(i) }
            case .cancelled:
                // Cancelled before or while running: the body ran at most once, no success.
                if body[i] > 1 || success[i] != 0 || cancel[i] != 1 || late[i] != 0 { problems.append(i) }
            default:
                problems.append(i)
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(statesMoveForward(log).isEmpty)
        #expect(log.replica.snapshot == g.snapshot())
    }

    @Test func compositesSettledFromSeveralThreads() {
        let groups = 300
        let width = 5
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let tally = Tally(size: groups)
        var resolvers: [[Resolver<Int, TestError>]] = []
        var leaves: [[GraphTask<Int, TestError>]] = []
        var composites: [AnyGraphTask] = []
        for gi in 0..<groups {
            var rs: [Resolver<Int, TestError>] = []
            var ts: [GraphTask<Int, TestError>] = []
            for _ in 0..<width {
                let (t, r) = GraphTask<Int, TestError>.pending(graph: g)
                rs.append(r)
                ts.append(t)
            }
            let composite: AnyGraphTask
            switch gi % 4 {
            case 0:
                composite = GraphTask.concurrent(ts).completion { _ in tally.bump("completion", gi) }
                    .onCancel { tally.bump("cancel", gi) }.execute()
            case 1:
                composite = GraphTask.sequential(ts).completion { _ in tally.bump("completion", gi) }
                    .onCancel { tally.bump("cancel", gi) }.execute()
            case 2:
                composite = GraphTask.allSettled(ts).completion { _ in tally.bump("completion", gi) }
                    .onCancel { tally.bump("cancel", gi) }.execute()
            default:
                composite = ts[0].then(ts[1]).completion { _ in tally.bump("completion", gi) }
                    .onCancel { tally.bump("cancel", gi) }.execute()
            }
            resolvers.append(rs)
            leaves.append(ts)
            composites.append(composite)
        }
        let rs = resolvers
        let ls = leaves
        let cs = composites
        DispatchQueue.concurrentPerform(iterations: Self.threads) { worker in
            var rng = SeededGenerator(seed: UInt64(worker + 100))
            for gi in (0..<groups).shuffled(using: &rng) {
                for j in (0..<width).shuffled(using: &rng) {
                    switch worker {
                    case 0:
                        if (gi + j) % 11 == 0 { rs[gi][j].fail(TestError()) } else { rs[gi][j].succeed(j) }
                    case 1:
                        if (gi * width + j) % 13 == 0 { ls[gi][j].cancel() }
                    case 2:
                        if j == 0 && gi % 9 == 0 { g.cancel(cs[gi].id, source: "keyboard") }
                        rs[gi][j].progress(TaskProgress(Double(j) / 10))
                    default:
                        if j == 0 && gi % 50 == 0 { _ = g.snapshot() }
                        _ = cs[gi].state
                    }
                }
            }
        }
        let completion = tally.get("completion")
        let cancel = tally.get("cancel")
        var problems: [String] = []
        for gi in 0..<groups {
            switch cs[gi].state {
            case .completed: if completion[gi] != 1 || cancel[gi] != 0 { problems.append("completed \(gi)") }
            case .cancelled: if completion[gi] != 0 || cancel[gi] != 1 { problems.append("cancelled \(gi)") }
            default: problems.append("unsettled \(gi)")
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(statesMoveForward(log).isEmpty)
        let snap = g.snapshot()
        #expect(log.replica.snapshot == snap)
        checkConsistency(snap, seed: 0)
        // Every aggregate that was reported never went down.
        var fractions: [NodeID: Double] = [:]
        var down: [NodeID] = []
        for case .progress(let id, let p) in log.changes {
            if let before = fractions[id], p.fraction < before, snap[id]?.kind != "pending" { down.append(id) }
            fractions[id] = p.fraction
        }
        #expect(down.isEmpty, "\(down.prefix(10))")
    }

    /// Two resolvers racing on one task: exactly one may return true.
    @Test
    func racingResolversExactlyOneWins() {
        let n = 3000
        let (g, _) = virtualGraph()
        let pairs = (0..<n).map { _ in GraphTask<Int, TestError>.pending(graph: g) }
        let tally = Tally(size: n)
        for (i, p) in pairs.enumerated() { p.task.success { _ in tally.bump("success", i) } }
        DispatchQueue.concurrentPerform(iterations: Self.threads) { worker in
            for i in 0..<n {
                let won = worker % 2 == 0 ? pairs[i].resolver.succeed(worker) : pairs[i].resolver.fill(.success(worker))
                if won { tally.bump("won", i) }
            }
        }
        let won = tally.get("won")
        let success = tally.get("success")
        #expect(won.filter { $0 != 1 }.count == 0, "resolvers that returned true: \(won.filter { $0 != 1 }.prefix(5))")
        #expect(success.allSatisfy { $0 == 1 })
    }
}

import Dispatch
import Foundation
import TestSupport

@testable import TaskGraph

/// Four threads hammering one graph at once, each with its own tasks and with tasks another
/// thread made (adopted across threads, cancelled through the graph): leaves, pending tasks
/// settled, failed and cancelled, progress, `concurrent`/`sequential` composites and `then`
/// links, and a second consumer of an adopted task (a `ref` node). Returns, per round, how often its final task's completion and cancel handlers fired.
enum OneGraphStress {
    static let threads = 4

    static func hammer(_ g: Graph, rounds: Int) -> (completion: [Int], cancel: [Int]) {
        let total = threads * rounds
        let tally = Tally(size: total)
        // Not-executed tasks a worker made for another one to adopt.
        let pool = Locked<[GraphTask<Int, TestError>]>([])
        // Tasks a composite adopted, for another thread to consume a second time (a `ref`).
        let shared = Locked<[GraphTask<Int, TestError>]>([])
        onThreads(threads) { w in
            var rng = SeededGenerator(seed: UInt64(w + 100))
            for i in 0..<rounds {
                let key = w * rounds + i
                let leaf = GraphTask<Int, TestError>(name: "leaf \(key)", graph: g) { s, _ in s(i) }
                let (p, r) = GraphTask<Int, TestError>.pending(name: "pending \(key)", graph: g)
                var parts = [leaf, p]
                // Made on another thread: adopting it moves it to this thread's stripe.
                if let other = pool.withLock({ $0.popLast() }) { parts.append(other) }
                let group =
                    i % 2 == 0
                    ? GraphTask.concurrent(parts, name: "group \(key)", graph: g)
                    : GraphTask.sequential(parts, name: "group \(key)", graph: g)
                let last = group.then(name: "count \(key)") { values in
                    GraphTask<Int, TestError>.succeed(values.count, graph: g)
                }
                last.completion { _ in tally.bump("completion", key) }
                    .onCancel { tally.bump("cancel", key) }
                    .execute()
                r.progress(TaskProgress(Double(i % 10) / 10, info: "step \(i)"))
                leaf.setWeight(Double(i % 3))
                switch rng.next() % 4 {
                case 0: r.succeed(i)
                case 1: r.fail(TestError(code: i))
                case 2: last.cancel()
                default: g.cancel(p.id, source: "keyboard")
                }
                // Shared tasks: a second consumer, often on another thread than the adopter's
                // (its ref node lives in this thread's stripe), executed, sometimes cancelled.
                shared.withLock { $0.append(i % 2 == 0 ? leaf : p) }
                if let s = shared.withLock({ $0.count > 2 ? $0.removeFirst() : nil }) {
                    let branch = GraphTask.concurrent([s], name: "branch \(key)", graph: g)
                    branch.execute()
                    if rng.next() % 3 == 0 { branch.cancel() }
                }
                pool.withLock {
                    $0.append(GraphTask<Int, TestError>(name: "pooled \(key)", graph: g) { s, _ in s(key) })
                }
                if i % 50 == 0 { _ = g.snapshot() }
            }
        }
        return (tally.get("completion"), tally.get("cancel"))
    }

    /// Runs `body(0..<count)` on `count` threads of their own at once (a dispatch pool may run
    /// fewer at a time on a small machine), and returns when all are done.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchGroup()
        for w in 0..<count {
            done.enter()
            let thread = Thread {
                body(w)
                done.leave()
            }
            thread.start()
        }
        done.wait()
    }
}

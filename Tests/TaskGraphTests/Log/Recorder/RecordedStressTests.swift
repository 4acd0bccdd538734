import Foundation
import TaskGraph
import TestSupport
import Testing

struct StressFailure: Error {}

/// Tasks one thread made for another to adopt.
final class StressPool: @unchecked Sendable { // `tasks` guarded by `lock`
    private let lock = NSLock()
    private var tasks: [GraphTask<Int, StressFailure>] = []
    func put(_ t: GraphTask<Int, StressFailure>) {
        lock.lock()
        tasks.append(t)
        lock.unlock()
    }
    func take() -> GraphTask<Int, StressFailure>? {
        lock.lock()
        defer { lock.unlock() }
        return tasks.popLast()
    }
}

/// Issue 11: a recording of a graph that four threads use at once (each its own tasks, and
/// tasks another thread made, adopted across threads) replays to the graph's own snapshot.
/// CI runs suites named *StressTests under ThreadSanitizer.
@Suite struct RecordedStressTests {
    @Test func aLogRecordedFromFourThreadsReplaysToTheSnapshot() throws {
        let g = Graph()
        let tmp = TemporaryDirectory("taskgraph-recording")
        defer { tmp.remove() }
        let path = tmp.file("stress.jsonl")
        let recording = try g.record(to: path, producer: "stress")
        let pool = StressPool()
        let done = DispatchGroup()
        for w in 0..<4 {
            done.enter()
            Thread {
                for i in 0..<200 {
                    let leaf = GraphTask<Int, StressFailure>(name: "leaf \(w).\(i)", graph: g) { s, _ in s(i) }
                    let (p, r) = GraphTask<Int, StressFailure>.pending(name: "pending \(w).\(i)", graph: g)
                    let other = pool.take()
                    let group = GraphTask.concurrent([leaf, p] + (other.map { [$0] } ?? []), graph: g)
                    let last = group.then { v in GraphTask<Int, StressFailure>.succeed(v.count, graph: g) }.execute()
                    r.progress(TaskProgress(0.5, info: "half"))
                    switch i % 4 {
                    case 0: r.succeed(i)
                    case 1: r.fail(StressFailure())
                    case 2: last.cancel()
                    default: g.cancel(p.id, source: "keyboard")
                    }
                    let next = GraphTask<Int, StressFailure>(name: "pooled \(w).\(i)", graph: g) { s, _ in s(w) }
                    pool.put(next)
                }
                done.leave()
            }.start()
        }
        done.wait()
        let final = g.snapshot()
        recording.cancel()
        let log = try LogReader.load(path: path)
        #expect(final.nodes.count > 4 * 200 * 4)
        #expect(log.finalSnapshot.nodes == final.nodes)
        #expect(Set(log.finalSnapshot.roots) == Set(final.roots))
    }
}

import Dispatch
import Foundation
import Testing
import TaskGraph

/// Bodies that run elsewhere: `async` bodies as Swift tasks, closure bodies on a queue.
@Suite struct BodiesElsewhereTests {
    /// Counts bodies running at once and remembers the most seen.
    final class Overlap: Sendable {
        private let state = Locked((now: 0, most: 0))
        func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.get.most }
    }

    @Test func concurrentAsyncBodiesRunInParallel() async throws {
        let g = Graph()
        let overlap = Overlap()
        let tasks = (0..<4).map { i in
            GraphTask<Int, Never>.async(name: "sleep \(i)", graph: g) { _ in
                overlap.enter()
                try? await Task.sleep(nanoseconds: 300_000_000)
                overlap.leave()
                return i
            }
        }
        let all = GraphTask.concurrent(tasks, name: "all")
        let values = try await all.value
        #expect(values == [0, 1, 2, 3])
        #expect(overlap.most == 4)   // all four were running at once (run inline: 1)
        #expect(g.snapshot()[all.id]?.state == .completed)
        #expect(g.snapshot()[tasks[0].id]?.kind == "task")
    }

    @Test func asyncBodyReportsProgressAndFails() async {
        let g = Graph()
        let seen = Recorder<Double>()
        let t = GraphTask<Int, TestError>.async(name: "fails", graph: g) { progress async throws(TestError) -> Int in
            progress(TaskProgress(0.5, info: "half"))
            throw TestError(code: 9)
        }
        t.progress { seen.add($0.fraction) }.execute()
        #expect(await eventuallyAsync { t.state == .completed })
        #expect(seen.all == [0.5])
        guard case .failure(let e)? = t.outcome else { Issue.record("not failed"); return }
        #expect(e.code == 9)
        #expect(g.snapshot()[t.id]?.progress.info == "half")
    }

    @Test func cancellingTheGraphTaskCancelsTheSwiftTask() async {
        let g = Graph()
        let started = Counter(), swiftCancelled = Counter()
        let t = GraphTask<Int, Never>.async(name: "long", graph: g) { _ in
            await withTaskCancellationHandler {
                started.bump()
                while !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
                return 0
            } onCancel: {
                swiftCancelled.bump()
            }
        }
        t.execute()
        #expect(await eventuallyAsync { started.value == 1 })
        t.cancel()
        #expect(await eventuallyAsync { swiftCancelled.value == 1 })
        #expect(t.state == .cancelled)
        #expect(t.cancelSource == "api")
        #expect(t.outcome == nil)   // the body's late value is ignored
    }

    @Test func aBodyThatThrowsCancellationErrorCancelsTheGraphTask() async {
        let g = Graph()
        let t = GraphTask<Int, any Error>.async(name: "gives up", graph: g) { _ in
            throw CancellationError()
        }
        t.execute()
        #expect(await eventuallyAsync { t.state == .cancelled })
    }

    @Test func aBodyWithAQueueRunsThere() {
        let g = Graph()
        let queue = DispatchQueue(label: "taskgraph.test.bodies")
        let ran = Counter()
        queue.suspend()
        let t = GraphTask<Int, TestError>(name: "on queue", graph: g, queue: queue) { succeed, _ in
            dispatchPrecondition(condition: .onQueue(queue))
            ran.bump()
            succeed(1)
        }
        t.execute()
        #expect(ran.value == 0)          // dispatched, not run inside execute()
        #expect(t.state == .executing)
        queue.resume()
        #expect(eventually { t.state == .completed })
        #expect(ran.value == 1)
        #expect(val(t) == 1)

        let s = GraphTask<Int, TestError>.succeed(2, graph: g, queue: queue).execute()
        #expect(eventually { val(s) == 2 })
    }
}

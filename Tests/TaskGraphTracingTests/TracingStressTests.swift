import Dispatch
import TaskGraph
import TaskGraphTracing
import Testing

/// Tracing from many threads at once (CI runs `StressTests` under ThreadSanitizer): every
/// executed node gets exactly one span, ended once, with its parent in the same trace.
@Suite struct TracingStressTests {
    @Test func manyThreadsTracedAtOnce() {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        let threads = 8
        let perThread = 200
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                let leaf = GraphTask<Int, TestError>(name: "leaf \(t).\(i)", graph: graph) { succeed, _, progress in
                    progress(TaskProgress(0.5, info: "half"))
                    succeed(i)
                }
                let root = GraphTask.sequential([leaf], name: "root \(t).\(i)")
                _ = root.wait(timeout: 30)
                _ = graph.serviceContext(for: leaf.id) // concurrent reads of the span table
            }
        }
        observation.cancel()
        let spans = tracer.spans
        #expect(spans.count == threads * perThread * 2)
        #expect(spans.allSatisfy { $0.ends == 1 })
        let byID = Dictionary(uniqueKeysWithValues: spans.map { ($0.ids.span, $0) })
        #expect(
            spans.filter { $0.name.hasPrefix("leaf") }.allSatisfy { byID[$0.parent ?? ""]?.ids.trace == $0.ids.trace })
        #expect(spans.filter { $0.name.hasPrefix("leaf") }.allSatisfy { $0.events.map(\.name) == ["half"] })
    }

    @Test func tracingStartsWhileTheGraphRuns() {
        let graph = Graph()
        let tracer = RecordingTracer()
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            started.signal()
            for i in 0..<2_000 {
                _ = GraphTask<Int, TestError>(name: "n\(i)", graph: graph) { succeed, _ in succeed(i) }.wait(
                    timeout: 30)
            }
        }
        started.wait()
        let observation = graph.trace(with: tracer)
        _ = GraphTask<Int, TestError>(name: "after", graph: graph) { succeed, _ in succeed(0) }.wait(timeout: 30)
        observation.cancel()
        #expect(tracer.spans.allSatisfy { $0.ends == 1 && $0.parent == nil })
        #expect(tracer.span("after") != nil)
    }
}

import Dispatch
import TaskGraph
import TaskGraphTracing
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A traced graph nobody holds any more is freed once its tracing is cancelled: the tracing
/// thread, the registry behind `serviceContext(for:)` and the queued events let go of it.
@Suite struct TracedGraphLifetimeTests {
    final class Weak: @unchecked Sendable { // written once, then read by the test's thread
        weak var graph: Graph?
    }

    @Test func aTracedGraphIsFreedAfterItsTracingIsCancelled() throws {
        let box = Weak()
        do {
            let graph = Graph()
            box.graph = graph
            let observation = graph.trace(with: RecordingTracer())
            for i in 0..<1_000 {
                GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) }.execute()
            }
            observation.cancel()
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + 30_000_000_000
        while box.graph != nil && DispatchTime.now().uptimeNanoseconds < deadline { usleep(1_000) }
        #expect(box.graph == nil)
    }
}

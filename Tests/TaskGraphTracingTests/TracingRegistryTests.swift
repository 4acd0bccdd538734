import TaskGraph
import TaskGraphTracing
import Testing

/// How `serviceContext(for:)` finds a graph's spans: per graph (node ids repeat across graphs),
/// and an observation may outlive its graph.
@Suite struct TracingRegistryTests {
    @Test func serviceContextNeverAnswersWithAnotherGraphsSpan() throws {
        let (g1, clock1) = virtualGraph()
        let (g2, clock2) = virtualGraph()
        let tracer = RecordingTracer()
        let o1 = g1.trace(with: tracer)
        let o2 = g2.trace(with: tracer)
        defer {
            o1.cancel()
            o2.cancel()
        }
        let a = timed("in g1", after: 1, graph: g1)
        let b = timed("in g2", after: 1, graph: g2)
        #expect(a.id == b.id) // the same id in two graphs
        a.execute()
        let context = try #require(g1.serviceContext(for: a.id))
        #expect(g2.serviceContext(for: b.id) == nil) // b has not started
        var headers: [String: String] = [:]
        tracer.inject(context, into: &headers, using: DictionaryInjector())
        let span = try #require(tracer.span("in g1"))
        #expect(headers["traceparent"] == "\(span.ids.trace)-\(span.ids.span)")
        b.execute()
        clock1.runUntilIdle()
        #expect(g1.serviceContext(for: a.id) == nil)
        #expect(g2.serviceContext(for: b.id) != nil)
        clock2.runUntilIdle()
        #expect(g2.serviceContext(for: b.id) == nil)
    }

    @Test func anObservationOutlivingItsGraphCancelsCleanly() {
        let tracer = RecordingTracer()
        var observation: (any GraphObservation)?
        do {
            let (g, clock) = virtualGraph()
            observation = g.trace(with: tracer)
            timed("done", after: 1, graph: g).execute()
            clock.runUntilIdle()
        }
        observation?.cancel()
        #expect(tracer.spans.map(\.name) == ["done"])
        #expect(tracer.spans.allSatisfy { $0.ends == 1 })
    }
}

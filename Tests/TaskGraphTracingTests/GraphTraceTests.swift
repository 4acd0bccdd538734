import TaskGraph
import TaskGraphTracing
import Testing
import Tracing

struct TestError: Error, CustomStringConvertible {
    var description: String { "disk full" }
}

/// A fresh graph on a virtual clock.
func virtualGraph() -> (Graph, VirtualClock) {
    let clock = VirtualClock()
    return (Graph(clock: clock), clock)
}

/// A leaf that settles when the virtual clock reaches `seconds` after it starts.
func timed(_ name: String, after seconds: Double, graph: Graph, fail: Bool = false) -> GraphTask<Int, TestError> {
    GraphTask<Int, TestError>(name: name, graph: graph) { task, succeed, failure, _ in
        let timer = graph.clock.schedule(after: seconds) { if fail { failure(TestError()) } else { succeed(1) } }
        task.onCancel { timer.cancel() }
    }
}

/// `Graph.trace(with:)` as ExportingSpans describes it, observed through a recording tracer.
@Suite struct GraphTraceTests {
    @Test func oneSpanPerExecutedNodeWithNameParentAttributesAndTimes() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let a = timed("fetch", after: 2, graph: g)
        let b = timed("parse", after: 3, graph: g).setWeight(4)
        let root = GraphTask.sequential([a, b], name: "build")
        root.execute()
        clock.runUntilIdle()

        #expect(tracer.spans.map(\.name).sorted() == ["build", "fetch", "parse"])
        let rootSpan = try #require(tracer.span("build"))
        let fetch = try #require(tracer.span("fetch"))
        let parse = try #require(tracer.span("parse"))
        #expect(rootSpan.parent == nil)
        #expect(fetch.parent == rootSpan.ids.span && parse.parent == rootSpan.ids.span)
        #expect(Set(tracer.spans.map(\.ids.trace)).count == 1)

        #expect(rootSpan.string("taskgraph.kind") == "sequential")
        #expect(fetch.string("taskgraph.kind") == "task")
        #expect(fetch.int("taskgraph.id") == Int64(a.id.rawValue))
        #expect(rootSpan.int("taskgraph.id") == Int64(root.id.rawValue))
        #expect(parse.double("taskgraph.weight") == 4)
        #expect(fetch.double("taskgraph.weight") == 1)
        #expect(fetch.string("taskgraph.cancel.source") == nil)
        #expect(fetch.status == nil && rootSpan.status == nil)

        // Start when executing, end when settled, on the graph's (virtual) clock.
        #expect(tracer.spans.allSatisfy { $0.ends == 1 })
        #expect(try #require(fetch.end) - fetch.start == 2_000_000_000)
        #expect(parse.start == fetch.end)
        #expect(try #require(parse.end) - parse.start == 3_000_000_000)
        #expect(rootSpan.start == fetch.start && rootSpan.end == parse.end)
    }

    @Test func failureSetsErrorStatusWithTheMessageAndSkippedNodesMakeNoSpan() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let root = GraphTask.sequential(
            [
                timed("ok", after: 1, graph: g),
                timed("broken", after: 1, graph: g, fail: true),
                timed("never", after: 1, graph: g),
            ], name: "pipeline")
        root.execute()
        clock.runUntilIdle()

        #expect(tracer.spans.map(\.name).sorted() == ["broken", "ok", "pipeline"])
        let broken = try #require(tracer.span("broken"))
        #expect(broken.status?.code == .error)
        #expect(broken.status?.message == "disk full")
        #expect(tracer.span("ok")?.status == nil)
        #expect(tracer.span("pipeline")?.status?.code == .error)
    }

    @Test func cancelSourceIsAnAttribute() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let leaf = timed("slow", after: 10, graph: g)
        let root = GraphTask.sequential([leaf], name: "job")
        root.execute()
        clock.advance(by: 1)
        root.cancel(source: "keyboard")
        clock.runUntilIdle()

        let job = try #require(tracer.span("job"))
        let slow = try #require(tracer.span("slow"))
        #expect(job.string("taskgraph.cancel.source") == "keyboard")
        #expect(slow.string("taskgraph.cancel.source") == "parent")
        #expect(job.status?.code == .error)
        #expect(job.status?.message == "cancelled")
        #expect(job.ends == 1 && slow.ends == 1)
        #expect(try #require(slow.end) - slow.start == 1_000_000_000)
    }

    @Test func progressInfoChangesAreEventsAtMost32() throws {
        let (g, _) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let leaf = GraphTask<Int, TestError>(name: "steps", graph: g) { succeed, _, progress in
            progress(TaskProgress(0.01, info: "phase 0"))
            progress(TaskProgress(0.02, info: "phase 0")) // same text: no new event
            progress(TaskProgress(0.03)) // no text: no event
            for i in 1..<50 { progress(TaskProgress(Double(i) / 50, info: "phase \(i)")) }
            succeed(0)
        }
        leaf.execute()
        let span = try #require(tracer.span("steps"))
        #expect(span.events.count == 32)
        #expect(span.events.map(\.name) == (0..<32).map { "phase \($0)" })
        #expect(span.events.first?.attributes.get("taskgraph.fraction") == .double(0.01))
    }

    @Test func aRootJoinsTheCurrentServiceContext() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        // A request's span, as a server would start it from an incoming traceparent.
        var incoming = ServiceContext.topLevel
        tracer.extract(["traceparent": "t99-s77"], into: &incoming, using: DictionaryExtractor())
        let root = GraphTask.sequential([timed("inner", after: 1, graph: g)], name: "handler")
        ServiceContext.$current.withValue(incoming) { root.execute() }
        clock.runUntilIdle()

        let handler = try #require(tracer.span("handler"))
        #expect(handler.ids.trace == "t99")
        #expect(handler.parent == "s77")
        #expect(tracer.span("inner")?.parent == handler.ids.span)
        #expect(tracer.span("inner")?.ids.trace == "t99")
    }

    @Test func withoutAContextEachRootStartsItsOwnTrace() {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        timed("one", after: 1, graph: g).execute()
        timed("two", after: 1, graph: g).execute()
        clock.runUntilIdle()
        #expect(Set(tracer.spans.map(\.ids.trace)).count == 2)
        #expect(tracer.spans.allSatisfy { $0.parent == nil })
    }

    @Test func serviceContextOfAnOpenSpanInjectsItsTraceparent() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let leaf = timed("call", after: 5, graph: g)
        #expect(g.serviceContext(for: leaf.id) == nil) // not executing yet
        leaf.execute()
        let context = try #require(g.serviceContext(for: leaf.id))
        var headers: [String: String] = [:]
        tracer.inject(context, into: &headers, using: DictionaryInjector())
        let span = try #require(tracer.span("call"))
        #expect(headers["traceparent"] == "\(span.ids.trace)-\(span.ids.span)")
        clock.runUntilIdle()
        #expect(g.serviceContext(for: leaf.id) == nil) // settled
    }

    @Test func nodesAddedBeforeTracingStartsGetSpansWhenTheyExecute() throws {
        let (g, clock) = virtualGraph()
        let root = GraphTask.sequential([timed("early", after: 1, graph: g)], name: "made before")
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        root.execute()
        clock.runUntilIdle()
        #expect(tracer.spans.map(\.name).sorted() == ["early", "made before"])
        #expect(tracer.span("early")?.parent == tracer.span("made before")?.ids.span)
    }

    @Test func cancellingTheObservationEndsOpenSpansAndStopsTracing() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        let leaf = timed("running", after: 10, graph: g)
        leaf.execute()
        observation.cancel()
        observation.cancel() // twice is fine
        #expect(tracer.span("running")?.ends == 1)
        timed("later", after: 1, graph: g).execute()
        clock.runUntilIdle()
        #expect(tracer.span("later") == nil)
        #expect(tracer.span("running")?.ends == 1)
        #expect(g.serviceContext(for: leaf.id) == nil)
    }
}

struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}

struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

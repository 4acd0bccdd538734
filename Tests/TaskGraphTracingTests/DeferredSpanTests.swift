import Dispatch
import TaskGraph
import TaskGraphTracing
import Testing
import Tracing

#if canImport(Glibc)
    import Glibc
#endif

/// On the real clock, spans are made on a tracing thread (the program's threads only queue
/// events); `flushObservers()`, `serviceContext(for:)` and `cancel()` see everything so far.
@Suite struct DeferredSpanTests {
    @Test func flushObserversReportsEverySpanWithItsParentAndOrder() throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        let fetch = GraphTask<Int, TestError>(name: "fetch", graph: graph) { succeed, _ in succeed(1) }
        let broken = GraphTask<Int, TestError>(name: "broken", graph: graph) { _, fail in fail(TestError()) }
        let root = GraphTask.sequential([fetch, broken], name: "build")
        _ = root.wait(timeout: 30)
        graph.flushObservers()

        #expect(tracer.spans.map(\.name).sorted() == ["broken", "build", "fetch"])
        let build = try #require(tracer.span("build"))
        #expect(tracer.span("fetch")?.parent == build.ids.span)
        #expect(tracer.span("broken")?.parent == build.ids.span)
        #expect(tracer.span("broken")?.status?.message == "disk full")
        #expect(build.status?.code == .error)
        #expect(tracer.spans.allSatisfy { $0.ends == 1 })
        let f = try #require(tracer.span("fetch"))
        let b = try #require(tracer.span("broken"))
        #expect(try #require(f.end) <= b.start) // the events' own instants, in order
    }

    @Test func theCallersContextIsTakenWhenTheRootStartsNotWhenItsSpanIsMade() throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        var incoming = ServiceContext.topLevel
        tracer.extract(["traceparent": "t42-s7"], into: &incoming, using: DictionaryExtractor())
        let root = GraphTask<Int, TestError>(name: "request", graph: graph) { succeed, _ in succeed(0) }
        ServiceContext.$current.withValue(incoming) { _ = root.wait(timeout: 30) }
        let other = GraphTask<Int, TestError>(name: "unrelated", graph: graph) { succeed, _ in succeed(0) }
        _ = other.wait(timeout: 30)
        graph.flushObservers() // on this thread, outside the request's context

        let span = try #require(tracer.span("request"))
        #expect(span.ids.trace == "t42" && span.parent == "s7")
        #expect(tracer.span("unrelated")?.parent == nil)
        #expect(tracer.span("unrelated")?.ids.trace != "t42")
    }

    /// The context is read through the runtime's task-local lookup first (`TaskLocalContext`):
    /// a binding in a Swift task (not only a thread's), a binding of some other task-local,
    /// and an explicit nil must each come out as `ServiceContext.current` would.
    @Test func aRootJoinsTheContextOfTheSwiftTaskThatStartsIt() async throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        var incoming = ServiceContext.topLevel
        tracer.extract(["traceparent": "t51-s5"], into: &incoming, using: DictionaryExtractor())
        let inTask = GraphTask<Int, Never>(name: "in a task", graph: graph) { succeed, _ in succeed(1) }
        let inChild = GraphTask<Int, Never>(name: "in a child task", graph: graph) { succeed, _ in succeed(2) }
        try await ServiceContext.$current.withValue(incoming) {
            _ = try await inTask.value
            _ = try await Task { try await inChild.value }.value // inherits the task-locals
        }
        let otherLocal = GraphTask<Int, Never>(name: "other local", graph: graph) { succeed, _ in succeed(3) }
        try await Unrelated.$value.withValue(7) { _ = try await otherLocal.value }
        let boundToNil = GraphTask<Int, Never>(name: "bound to nil", graph: graph) { succeed, _ in succeed(4) }
        try await ServiceContext.$current.withValue(incoming) {
            try await ServiceContext.$current.withValue(nil) { _ = try await boundToNil.value }
        }
        graph.flushObservers()

        for name in ["in a task", "in a child task"] {
            let span = try #require(tracer.span(name))
            #expect(span.ids.trace == "t51" && span.parent == "s5", "\(name)")
        }
        for name in ["other local", "bound to nil"] {
            let span = try #require(tracer.span(name))
            #expect(span.parent == nil && span.ids.trace != "t51", "\(name)")
        }
    }

    @Test func aContextQueuedAtTheEndOfAChunkStaysWithItsNode() throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        func run(_ name: String) {
            _ = GraphTask<Int, Never>(name: name, graph: graph) { succeed, _ in succeed(0) }.wait(timeout: 30)
        }
        // Queued per task: added, executing, completed, and (inside a context) the context
        // before executing. Two tasks outside, then the 1023rd inside puts its context last
        // in the first chunk of 4,096 and its start first in the next.
        run("outside 1")
        run("outside 2")
        var incoming = ServiceContext.topLevel
        tracer.extract(["traceparent": "t42-s7"], into: &incoming, using: DictionaryExtractor())
        ServiceContext.$current.withValue(incoming) {
            for i in 0..<1_100 { run("inside \(i)") }
        }
        graph.flushObservers()
        let inside = tracer.spans.filter { $0.name.hasPrefix("inside") }
        #expect(inside.count == 1_100)
        #expect(inside.allSatisfy { $0.ids.trace == "t42" && $0.parent == "s7" })
        #expect(tracer.spans.filter { $0.name.hasPrefix("outside") }.allSatisfy { $0.parent == nil })
    }

    @Test func serviceContextInsideTheBodyIsTheOpenSpans() throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        let seen = Box()
        let call = GraphTask<Int, TestError>(name: "call", graph: graph) { task, succeed, _, _ in
            var headers: [String: String] = [:]
            if let context = graph.serviceContext(for: task.id) {
                tracer.inject(context, into: &headers, using: DictionaryInjector())
            }
            seen.value = headers["traceparent"]
            succeed(0)
        }
        _ = call.wait(timeout: 30)
        let span = try #require(tracer.span("call"))
        #expect(seen.value == "\(span.ids.trace)-\(span.ids.span)")
    }

    @Test func progressInfoChangesBecomeEventsAndBareProgressIsNotQueued() throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        let steps = GraphTask<Int, TestError>(name: "steps", graph: graph) { succeed, _, progress in
            for i in 0..<1_000 { progress(TaskProgress(Double(i) / 2_000)) } // no text: no event
            progress(TaskProgress(0.6, info: "upload"))
            progress(TaskProgress(0.7, info: "upload")) // same text
            progress(TaskProgress(0.9, info: "verify"))
            succeed(0)
        }
        _ = steps.wait(timeout: 30)
        graph.flushObservers()
        let span = try #require(tracer.span("steps"))
        #expect(span.events.map(\.name) == ["upload", "verify"])
        #expect(span.events.last?.attributes.get("taskgraph.fraction") == .double(0.9))
    }

    @Test func aQuietProgramsSpansEndWithoutAFlush() throws {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        _ = GraphTask<Int, TestError>(name: "lonely", graph: graph) { succeed, _ in succeed(0) }.wait(timeout: 30)
        // Far fewer events than a chunk: the tracing thread's periodic look reports them.
        let deadline = DispatchTime.now() + .seconds(30)
        while tracer.span("lonely")?.ends != 1, DispatchTime.now() < deadline { usleep(2_000) }
        #expect(tracer.span("lonely")?.ends == 1)
    }

    @Test func manyEventsPastSeveralChunksAllBecomeSpans() {
        let graph = Graph()
        let tracer = RecordingTracer()
        let observation = graph.trace(with: tracer)
        let n = 20_000 // 60,000 events: many full chunks handed over while the loop runs
        for i in 0..<n {
            _ = GraphTask<Int, Never>(name: "t", graph: graph) { succeed, _ in succeed(i) }.wait(timeout: 30)
        }
        observation.cancel()
        let spans = tracer.spans
        #expect(spans.count == n)
        #expect(spans.allSatisfy { $0.ends == 1 && $0.parent == nil })
    }
}

/// A value set on one thread and read after `wait` on another.
final class Box: @unchecked Sendable { // written before the task settles, read after
    var value: String?
}

/// A task-local other than `ServiceContext.current`.
private enum Unrelated {
    @TaskLocal static var value = 0
}

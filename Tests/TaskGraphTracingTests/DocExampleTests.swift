import TaskGraph
import Testing
import Tracing

@testable import TaskGraphTracing

/// The examples of TaskGraphTracing's DocC articles compile and do what the text says.
@Suite struct DocExampleTests {
    /// "Spans as Nodes", on a graph of its own (bootstrapping and serving are once per process).
    @Test func theSpansAsNodesExample() async throws {
        let (g, _) = virtualGraph()
        let tracer = GraphTracer(graph: g)
        #expect(tracer.downstream == nil)
        let answer = await tracer.withSpan("GET /users/:id", ofKind: .server) { span in
            span.attributes["user.id"] = 42
            return await withGraphTask("load user") { scope in
                scope.progress(0.5, info: "query")
                return "user 42"
            }
        }
        #expect(answer == "user 42")
        let nodes = g.snapshot().nodes.values
        let span = try #require(nodes.first { $0.name == "GET /users/:id" })
        let scope = try #require(nodes.first { $0.name == "load user" })
        #expect(span.kind == "span")
        #expect(span.state == .completed)
        #expect(scope.parent == span.id)
        #expect(scope.progress.info == "query")
    }

    /// "Spans as Nodes": a handler names its request's span through the context, with the
    /// tracer as `InstrumentationSystem.tracer` gives it (an existential).
    @Test func aHandlerNamesItsRequestSpan() {
        let (g, _) = virtualGraph()
        let tracer: any Tracer = GraphTracer(graph: g)
        tracer.withSpan("HTTP GET route not found", ofKind: .server) { span in
            let context = ServiceContext.current ?? .topLevel
            tracer.activeSpan(identifiedBy: context)?.operationName = "GET /work/:ms"
            #expect(span.operationName == "GET /work/:ms")
        }
        #expect(g.snapshot().nodes.values.map(\.name) == ["GET /work/:ms"])
    }
}

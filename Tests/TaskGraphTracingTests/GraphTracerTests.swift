import InMemoryTracing
import Synchronization
import TaskGraph
import Testing
import Tracing

@testable import TaskGraphTracing

/// `GraphTracer`: spans as nodes of kind `span`, forwarded unchanged (AsyncScopes).
@Suite struct GraphTracerTests {
    private func nodes(_ g: Graph, named name: String) -> [GraphNode] {
        g.snapshot().nodes.values.filter { $0.name == name }
    }

    @Test func spansAreNodesWithParentsFromTheContextAndTheCurrentScope() async throws {
        let (g, _) = virtualGraph()
        let tracer = GraphTracer(graph: g)
        await withGraphTask("handler", graph: g) { _ in
            await tracer.withSpan("request") { _ in
                await withGraphTask("step") { _ in
                    tracer.withSpan("query") { _ in }
                }
                tracer.withSpan("sibling") { _ in }
            }
        }
        let handler = nodes(g, named: "handler")[0]
        let request = nodes(g, named: "request")[0]
        let step = nodes(g, named: "step")[0]
        let query = nodes(g, named: "query")[0]
        let sibling = nodes(g, named: "sibling")[0]
        #expect(request.kind == "span")
        #expect(request.parent == handler.id) // started inside a scope: the scope
        #expect(step.parent == request.id) // a scope opened inside a span: its child
        #expect(query.parent == step.id) // the innermost of the context's span and the scope
        #expect(sibling.parent == request.id)
        #expect([request, query, sibling].allSatisfy { $0.state == .completed && !$0.failed })
        tracer.withSpan("alone") { _ in }
        #expect(nodes(g, named: "alone")[0].parent == nil)
    }

    @Test func anErrorStatusOrARecordedErrorFailsTheNode() {
        let (g, _) = virtualGraph()
        let tracer = GraphTracer(graph: g)
        tracer.withSpan("status") { span in span.setStatus(SpanStatus(code: .error, message: "bad gateway")) }
        try? tracer.withSpan("thrown") { _ in throw SpanTestError(message: "test error 5") }
        tracer.withSpan("ok") { span in span.setStatus(SpanStatus(code: .ok)) }
        #expect(nodes(g, named: "status")[0].message == "bad gateway")
        #expect(nodes(g, named: "status")[0].failed)
        #expect(nodes(g, named: "thrown")[0].message == "test error 5")
        #expect(!nodes(g, named: "ok")[0].failed)
        #expect(nodes(g, named: "ok")[0].state == .completed)
    }

    @Test func eventsAreProgressInfoAndAttributesAreRecordedBounded() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let tracer = GraphTracer(graph: g)
        var id: NodeID?
        tracer.withSpan("s") { span in
            id = span.nodeID
            span.addEvent("retrying")
            span.attributes["http.method"] = "GET"
            for i in 0..<40 { span.attributes["k\(i < 10 ? "0" : "")\(i)"] = Int64(i) }
            span.attributes["long"] = String(repeating: "x", count: 300)
        }
        #expect(g.snapshot()[id!]?.progress.info == "retrying")
        let last = log.events.compactMap { e -> [NodeAttribute]? in
            if case .attributes(let i, let a) = e.change, i == id { return a } else { return nil }
        }.last!
        #expect(last.count == 32)
        #expect(last.first == NodeAttribute("http.method", "GET"))
        #expect(last[1] == NodeAttribute("k00", "0"))
        #expect(last.allSatisfy { $0.value.utf8.count <= 256 })
    }

    @Test func theDownstreamTracerSeesTheSameSpans() async throws {
        let (g, _) = virtualGraph()
        let memory = InMemoryTracer()
        let tracer = GraphTracer(graph: g, forwardingTo: memory)
        await tracer.withSpan("outer") { span in
            span.attributes["a"] = 1
            await withGraphTask("scope", graph: g) { _ in
                try? tracer.withSpan("inner") { inner in
                    inner.operationName = "inner renamed"
                    throw SpanTestError(message: "test error 2")
                }
            }
        }
        let spans = memory.finishedSpans
        #expect(spans.map(\.operationName) == ["inner renamed", "outer"])
        #expect(spans[0].parentSpanID == spans[1].spanID)
        #expect(spans[0].traceID == spans[1].traceID)
        #expect(spans[1].attributes["a"]?.toSpanAttribute() == .int64(1))
        #expect(spans[0].errors.count == 1)
        #expect(spans[0].status?.code == .error)
    }

    @Test func cancellingASpanCancelsItsNearestScopeOrSaysReadOnly() async throws {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let tracer = GraphTracer(graph: g)
        let spanID = Locked<NodeID?>(nil)
        let canceller = Task {
            while spanID.get == nil { await Task.yield() }
            g.cancel(spanID.get!)
        }
        let outcome = await withGraphTask("owner", graph: g) { scope -> (NodeID, String) in
            do {
                try await tracer.withSpan("slow request") { span in
                    spanID.withLock { $0 = span.nodeID }
                    try await Task.sleep(for: .seconds(1000))
                }
                return (scope.id, "none")
            } catch {
                return (scope.id, "\(type(of: error))")
            }
        }
        await canceller.value
        #expect(outcome.1 == "CancellationError")
        #expect(log.cancelSources(outcome.0) == ["graph"])
        #expect(log.cancelSources(spanID.get!) == ["parent"])
        // A span no scope or task owns: nothing to cancel.
        let lone = tracer.startSpan("lone")
        g.cancel(lone.nodeID)
        #expect(g.snapshot()[lone.nodeID]?.state == .executing)
        lone.end()
        #expect(g.snapshot()[lone.nodeID]?.state == .completed)
    }
}

/// A value behind a lock.
private final class Locked<T: Sendable>: Sendable {
    private let m: Mutex<T>
    init(_ v: T) { m = Mutex(v) }
    var get: T { m.withLock { $0 } }
    func withLock(_ body: (inout T) -> Void) { m.withLock { body(&$0) } }
}

/// Every event of a graph from now on.
private final class EventLog: Sendable {
    private let items = Locked<[GraphEvent]>([])
    let observation: any GraphObservation
    init(_ g: Graph) {
        let items = self.items
        observation = g.observe { e in items.withLock { $0.append(e) } }
    }
    var events: [GraphEvent] { items.get }
    func cancelSources(_ id: NodeID) -> [String] {
        events.compactMap {
            if case .cancelRequested(let i, let s) = $0.change, i == id { return s } else { return nil }
        }
    }
}

private struct SpanTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

import InMemoryTracing
import Synchronization
import TaskGraph
import Testing
import Tracing

@testable import TaskGraphTracing

/// A span renamed after it started renames its node (the AsyncScopes
/// article, "Spans of instrumented libraries": renames follow).
@Suite struct SpanRenameTests {
    /// The `renamed` events of `g` from now on, as (id, name).
    private final class Renames: Sendable {
        private final class Items: Sendable {
            let m = Mutex<[String]>([])
        }
        private let items = Items()
        let observation: any GraphObservation
        init(_ g: Graph) {
            let items = self.items
            observation = g.observe { e in
                if case .renamed(let id, let name) = e.change {
                    items.m.withLock { $0.append("\(id.rawValue) \(name)") }
                }
            }
        }
        var list: [String] { items.m.withLock { $0 } }
    }

    @Test func renamingASpanRenamesItsNodeAndTheDownstreamSpan() {
        let (g, _) = virtualGraph()
        let renames = Renames(g)
        let memory = InMemoryTracer()
        let tracer = GraphTracer(graph: g, forwardingTo: memory)
        var id: NodeID?
        tracer.withSpan("GET") { span in
            id = span.nodeID
            span.operationName = "GET /users/:id"
            #expect(g.snapshot()[span.nodeID]?.name == "GET /users/:id")
            span.operationName = "GET /users/:id" // the same name: no second event
            #expect(span.operationName == "GET /users/:id")
        }
        let node = id!
        #expect(memory.finishedSpans.map(\.operationName) == ["GET /users/:id"])
        #expect(g.snapshot()[node]?.name == "GET /users/:id")
        #expect(g.snapshot()[node]?.state == .completed)
        #expect(renames.list == ["\(node.rawValue) GET /users/:id"])
    }

    @Test func aHandlerWithOnlyTheContextRenamesTheRunningSpan() {
        let (g, _) = virtualGraph()
        let memory = InMemoryTracer()
        let tracer = GraphTracer(graph: g, forwardingTo: memory)
        // A tracing middleware's span, named before routing; the route handler has the context.
        let span = tracer.startSpan("HTTP GET route not found", context: .topLevel, ofKind: .server)
        ServiceContext.withValue(span.context) {
            let context = ServiceContext.current ?? .topLevel
            tracer.activeSpan(identifiedBy: context)?.operationName = "GET /hello"
        }
        // While it runs: the node's row and the downstream span have the route's name.
        #expect(g.snapshot()[span.nodeID]?.name == "GET /hello")
        #expect(g.snapshot()[span.nodeID]?.state == .executing)
        #expect(span.operationName == "GET /hello")
        span.end()
        #expect(memory.finishedSpans.map(\.operationName) == ["GET /hello"])
        #expect(tracer.activeSpan(identifiedBy: span.context) == nil) // ended
        #expect(tracer.activeSpan(identifiedBy: .topLevel) == nil)
    }

    @Test func anEndedSpanKeepsItsNodesName() {
        let (g, _) = virtualGraph()
        let renames = Renames(g)
        let tracer = GraphTracer(graph: g)
        let span = tracer.startSpan("first", context: .topLevel)
        let id = span.nodeID
        span.end()
        span.operationName = "late"
        #expect(g.snapshot()[id]?.name == "first")
        #expect(renames.list.isEmpty)
    }

    @Test func graphRenameCutsTheNameAndIgnoresUnknownNodes() {
        let (g, _) = virtualGraph()
        let renames = Renames(g)
        let tracer = GraphTracer(graph: g)
        tracer.withSpan("s") { span in
            g.rename(span.nodeID, to: String(repeating: "é", count: 3000)) // 6,000 bytes
            #expect(g.snapshot()[span.nodeID]?.name.utf8.count == 4096)
            g.rename(NodeID(999), to: "nobody")
        }
        #expect(renames.list.count == 1)
    }

    @Test func aTracedGraphRenamesTheOpenSpanOfARenamedNode() {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let task = timed("fetch", after: 2, graph: g)
        task.execute()
        g.rename(task.id, to: "fetch index")
        clock.runUntilIdle()
        #expect(tracer.spans.map(\.name) == ["fetch index"])
    }
}

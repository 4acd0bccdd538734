import InMemoryTracing
import Synchronization
import TaskGraph
import Testing
import Tracing

@testable import TaskGraphTracing

/// A span cancelled from the graph ends with status error, description `cancelled`, and its
/// node is cancelled (`⊘` in taskview), not failed with the message `error`.
@Suite struct SpanCancelTests {
    /// A Hummingbird request: the tracing middleware's span, the handler's scope inside it;
    /// the error the handler throws sets the span's status to error (no message), is recorded,
    /// and ends the span (what `TracingMiddleware` does).
    private func request(
        _ tracer: GraphTracer, _ g: Graph, scope scopeID: Slot<NodeID?>, span spanID: Slot<NodeID?>
    ) async {
        let span = tracer.startSpan("HTTP GET route not found", context: .topLevel, ofKind: .server)
        spanID.set(span.nodeID)
        do {
            try await ServiceContext.withValue(span.context) {
                try await withGraphTask("handle", graph: g) { scope in
                    scopeID.set(scope.id)
                    try await Task.sleep(for: .seconds(1000))
                }
            }
            span.end()
        } catch {
            span.setStatus(SpanStatus(code: .error))
            span.recordError(error)
            span.end()
        }
    }

    @Test func aSpanWhoseScopeTheGraphCancelledEndsCancelledWithStatusErrorCancelled() async throws {
        let (g, _) = virtualGraph()
        let log = CancelLog(g)
        let memory = InMemoryTracer()
        let tracer = GraphTracer(graph: g, forwardingTo: memory)
        let scopeID = Slot<NodeID?>(nil)
        let spanID = Slot<NodeID?>(nil)
        let canceller = Task {
            while scopeID.get == nil { await Task.yield() }
            g.cancel(scopeID.get!, source: "keyboard")
        }
        await request(tracer, g, scope: scopeID, span: spanID)
        await canceller.value
        let span = try #require(g.snapshot()[spanID.get!])
        #expect(span.parent == nil)
        #expect(g.snapshot()[scopeID.get!]?.parent == spanID.get)
        #expect(span.state == .cancelled)
        #expect(!span.failed)
        #expect(log.sources(spanID.get!) == [CancelSource.child])
        #expect(log.sources(scopeID.get!) == ["keyboard"])
        let finished = memory.finishedSpans
        #expect(finished.map(\.operationName) == ["HTTP GET route not found"])
        #expect(finished.first?.status?.code == .error)
        #expect(finished.first?.status?.message == "cancelled")
        #expect(finished.first?.errors.count == 1)
    }

    @Test func aSpanWhoseWorkItsOwnProgramCancelledFails() async throws {
        let (g, _) = virtualGraph()
        let log = CancelLog(g)
        let tracer = GraphTracer(graph: g)
        let scopeID = Slot<NodeID?>(nil)
        let spanID = Slot<NodeID?>(nil)
        let work = Task { await request(tracer, g, scope: scopeID, span: spanID) }
        while scopeID.get == nil { await Task.yield() }
        work.cancel() // the program's own Swift cancel, not the graph's
        await work.value
        let span = try #require(g.snapshot()[spanID.get!])
        #expect(log.sources(scopeID.get!) == [CancelSource.task])
        #expect(log.sources(spanID.get!).isEmpty)
        #expect(span.state == .completed)
        #expect(span.failed)
        #expect(span.message == "error")
    }

    @Test func aSpanInACancelledScopeStaysCancelledAndTellsTheDownstream() async throws {
        let (g, _) = virtualGraph()
        let log = CancelLog(g)
        let memory = InMemoryTracer()
        let tracer = GraphTracer(graph: g, forwardingTo: memory)
        let ownerID = Slot<NodeID?>(nil)
        let spanID = Slot<NodeID?>(nil)
        let canceller = Task {
            while spanID.get == nil { await Task.yield() }
            g.cancel(ownerID.get!)
        }
        await withGraphTask("owner", graph: g) { owner in
            ownerID.set(owner.id)
            // The span's work ignores the cancel and ends well: the node stays cancelled.
            await tracer.withSpan("query") { span in
                spanID.set(span.nodeID)
                while !Task.isCancelled { await Task.yield() }
            }
        }
        await canceller.value
        let span = try #require(g.snapshot()[spanID.get!])
        #expect(span.state == .cancelled)
        #expect(log.sources(spanID.get!) == [CancelSource.parent])
        #expect(memory.finishedSpans.first?.status?.code == .error)
        #expect(memory.finishedSpans.first?.status?.message == "cancelled")
    }

    @Test func aTracedGraphsCancelledNodeEndsItsSpanWithStatusErrorCancelled() throws {
        let (g, clock) = virtualGraph()
        let tracer = RecordingTracer()
        let observation = g.trace(with: tracer)
        defer { observation.cancel() }
        let leaf = timed("slow", after: 10, graph: g)
        let ok = timed("quick", after: 1, graph: g)
        let root = GraphTask.allSettled([ok, leaf], name: "job")
        root.execute()
        clock.advance(by: 2)
        leaf.cancel(source: "keyboard")
        clock.runUntilIdle()
        let slow = try #require(tracer.span("slow"))
        #expect(slow.status?.code == .error)
        #expect(slow.status?.message == "cancelled")
        #expect(slow.string(TaskGraphSpanAttribute.cancelSource) == "keyboard")
        #expect(tracer.span("quick")?.status == nil)
        #expect(tracer.span("job")?.status == nil) // allSettled: it settles well
    }
}

/// A value behind a lock.
private final class Slot<T: Sendable>: Sendable {
    fileprivate let m: Mutex<T>
    init(_ v: T) { m = Mutex(v) }
    var get: T { m.withLock { $0 } }
    func set(_ v: T) { m.withLock { $0 = v } }
}

extension Slot {
    func append<E>(_ e: E) where T == [E] { m.withLock { $0.append(e) } }
}

/// The cancel sources a graph records from now on.
private final class CancelLog: Sendable {
    private let items = Slot<[(NodeID, String)]>([])
    let observation: any GraphObservation
    init(_ g: Graph) {
        let items = self.items
        observation = g.observe { e in
            if case .cancelRequested(let id, let source) = e.change { items.append((id, source)) }
        }
    }
    func sources(_ id: NodeID) -> [String] { items.get.filter { $0.0 == id }.map(\.1) }
}

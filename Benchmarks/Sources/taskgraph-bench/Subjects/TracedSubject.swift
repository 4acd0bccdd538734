#if !NO_GRAPHTASK
import Synchronization
import TaskGraph
import TaskGraphTracing
import Tracing

/// The "GraphTask + tracer" subject: W1 with `graph.trace(with:)` attached to the cheapest
/// tracer that still does a real tracer's work per span (a span object holding its name,
/// context, attributes and status, counted when it ends), so the row shows what
/// TaskGraphTracing itself costs per task.
enum TracedSubject {
    static let label = "GraphTask + tracer"

    static func w1(n: Int) -> Double {
        let graph = Graph()
        let tracer = CountingTracer()
        let observation = graph.trace(with: tracer)
        defer { observation.cancel() }
        let sink = Sink()
        let t = seconds {
            for i in 0..<n {
                GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) }
                    .success { sink.add($0) }
                    .execute()
            }
        }
        check(sink.count == n && sink.total == n * (n - 1) / 2, "traced W1 sum")
        check(tracer.ended.load(ordering: .relaxed) == n, "traced W1 spans \(tracer.ended.load(ordering: .relaxed)) != \(n)")
        return t / Double(n)
    }
}

/// A tracer that keeps nothing but a count of ended spans.
final class CountingTracer: Tracer {
    let ended = Atomic<Int>(0)

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> CountingSpan {
        CountingSpan(name: operationName, context: context(), tracer: self)
    }

    func activeSpan(identifiedBy context: ServiceContext) -> CountingSpan? { nil }
    func forceFlush() {}
    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {}
    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}

/// A span that holds what an exporter would send; only the tracing thread touches it here.
final class CountingSpan: Span, @unchecked Sendable {
    let context: ServiceContext
    var operationName: String
    var attributes = SpanAttributes()
    private var status: SpanStatus?
    private let tracer: CountingTracer

    init(name: String, context: ServiceContext, tracer: CountingTracer) {
        operationName = name
        self.context = context
        self.tracer = tracer
    }

    var isRecording: Bool { true }
    func setStatus(_ status: SpanStatus) { self.status = status }
    func addEvent(_ event: SpanEvent) {}
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {}
    func addLink(_ link: SpanLink) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        _ = instant()
        tracer.ended.add(1, ordering: .relaxed)
    }
}
#endif

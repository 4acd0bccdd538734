#if !NO_GRAPHTASK
    import Synchronization
    import TaskGraph
    import TaskGraphTracing
    import Tracing

    /// The "GraphTask + tracer" rows: `graph.trace(with:)` attached to the cheapest tracer that
    /// still does a real tracer's work per span (a span object holding its name, context,
    /// attributes and status, counted when it ends), so the row shows what TaskGraphTracing
    /// itself costs; and the same with a tracer that records nothing (TaskGraphTracing's own
    /// side alone).
    enum TracedSubject {
        static let label = "GraphTask + tracer"
        static let noOpLabel = "GraphTask + no-op tracer"

        /// Runs `body` with `graph` traced; the observation is cancelled after (every open span
        /// ends), outside the timed part. `counting`: checks that every started span ended.
        static func withTrace<T>(_ graph: Graph, counting: Bool, _ body: () -> T) -> T {
            guard counting else {
                let observation = graph.trace(with: DiscardingTracer())
                defer { observation.cancel() }
                return body()
            }
            let tracer = CountingTracer()
            let observation = graph.trace(with: tracer)
            let result = body()
            observation.cancel()
            let started = tracer.started.load(ordering: .relaxed)
            let ended = tracer.ended.load(ordering: .relaxed)
            check(started > 0 && ended == started, "traced spans: \(started) started, \(ended) ended")
            return result
        }
    }

    /// What the benchmark's tracers leave out: no active span, nothing to flush, no propagation.
    protocol BenchTracer: Tracer {}

    extension BenchTracer {
        func activeSpan(identifiedBy context: ServiceContext) -> Span? { nil }
        func forceFlush() {}
        func inject<Carrier, Inject: Injector>(
            _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
        )
        where Inject.Carrier == Carrier {}
        func extract<Carrier, Extract: Extractor>(
            _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
        )
        where Extract.Carrier == Carrier {}
    }

    /// A tracer that keeps nothing but counts of started and ended spans.
    final class CountingTracer: BenchTracer {
        let started = Atomic<Int>(0)
        let ended = Atomic<Int>(0)

        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> CountingSpan {
            started.add(1, ordering: .relaxed)
            return CountingSpan(name: operationName, context: context(), tracer: self)
        }
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
        func recordError<Instant: TracerInstant>(
            _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
        ) {}
        func addLink(_ link: SpanLink) {}
        func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
            _ = instant()
            tracer.ended.add(1, ordering: .relaxed)
        }
    }
    /// A tracer that does nothing, but whose spans say they record, so TaskGraphTracing does all
    /// its work per span (parent lookup, context, attributes, status, end) and only the
    /// backend's part (keeping a span object and what it is given) is left out. (`NoOpTracer`'s
    /// spans say they do not record, which would skip our attributes too.)
    struct DiscardingTracer: BenchTracer {
        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> DiscardingSpan {
            DiscardingSpan(context: context())
        }
    }

    /// A span that keeps only its context (which a child's span needs) and drops the rest.
    struct DiscardingSpan: Span {
        let context: ServiceContext
        var operationName: String {
            get { "" }
            nonmutating set {}
        }
        var attributes: SpanAttributes {
            get { SpanAttributes() }
            nonmutating set {}
        }
        var isRecording: Bool { true }
        func setStatus(_ status: SpanStatus) {}
        func addEvent(_ event: SpanEvent) {}
        func recordError<Instant: TracerInstant>(
            _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
        ) {}
        func addLink(_ link: SpanLink) {}
        func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
    }
#endif

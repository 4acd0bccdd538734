import Synchronization
import TaskGraph
import Tracing

/// A swift-distributed-tracing `Tracer` whose spans become nodes (kind `span`),
/// and which passes every span on to `downstream` (swift-otel, say) unchanged.
///
/// ```swift
/// InstrumentationSystem.bootstrap(GraphTracer(forwardingTo: otelTracer))
/// ```
///
/// A span's node runs from `startSpan` to `end`: completed, or failed when its status was set
/// to error or an error was recorded (the status message or the error's description), or
/// cancelled (`⊘` in taskview) when the graph cancelled it or a scope or task inside it
/// whose cancel then failed the span; the downstream span of a cancelled node ends with
/// status error and the description `cancelled`. Its
/// parent is the innermost of the span of its parent context (when that is a node of this
/// graph) and `GraphScope.current`; a scope opened inside the span is its child. Span events
/// are shown as progress info; attributes (at most 32, cut at 256 bytes, text) are kept for
/// the detail pane and recorded. A span is not a task: cancelling its node cancels its
/// nearest scope or `GraphTask`.
public struct GraphTracer: Tracer {
    /// The spans this tracer makes: each one also a `span` node of the graph.
    public typealias Span = GraphSpan

    /// The graph the spans' nodes join.
    public let graph: Graph
    /// The tracer every span is passed on to.
    public let downstream: (any Tracer)?

    /// A tracer whose spans become nodes of `graph`, each also started on `downstream`.
    public init(graph: Graph = .shared, forwardingTo downstream: (any Tracer)? = nil) {
        self.graph = graph
        self.downstream = downstream
        SpanNodes.installContextLookup { ServiceContext.current?[GraphSpanNodeKey.self] }
    }

    /// Starts a span: a `span` node of the graph under its parent (the context's span, or the
    /// current scope), and the same span of the downstream tracer.
    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> GraphSpan {
        let parentContext = context()
        let inner: (any Tracing.Span)? = downstream.map {
            Self.start(
                $0, operationName, context: parentContext, ofKind: kind, at: instant(), function: function,
                file: fileID, line: line)
        }
        let node = SpanNodes.begin(
            name: operationName, graph: graph, contextParent: parentContext[GraphSpanNodeKey.self])
        var own = inner?.context ?? parentContext
        own[GraphSpanNodeKey.self] = node
        let holder = GraphSpanHolder()
        own[GraphSpanKey.self] = holder
        let span = GraphSpan(node: node, inner: inner, context: own, operationName: operationName)
        holder.span = span // before the span (and so its context) is handed out
        return span
    }

    /// The span `context` belongs to (the span's own context, or one derived from it), while
    /// it runs: what code that has only the context (a route handler under a tracing
    /// middleware) renames or annotates, through `InstrumentationSystem.tracer`. Nil once the
    /// span ended, or when no span of this tracer made the context.
    public func activeSpan(identifiedBy context: ServiceContext) -> GraphSpan? {
        guard let span = context[GraphSpanKey.self]?.span, !span.hasEnded else { return nil }
        return span
    }

    /// Starts the span on `tracer`, opened from its existential.
    private static func start<T: Tracer, Instant: TracerInstant>(
        _ tracer: T, _ operationName: String, context: ServiceContext, ofKind kind: SpanKind,
        at instant: Instant, function: String, file: String, line: UInt
    ) -> any Tracing.Span {
        tracer.startSpan(
            operationName, context: context, ofKind: kind, at: instant, function: function, file: file, line: line)
    }

    /// Passes the flush on to `downstream` (deprecated as the protocol's requirement is:
    /// forwarding it is then no use of a deprecated API).
    @available(*, deprecated)
    public func forceFlush() {
        downstream?.forceFlush()
    }

    /// Extracts a context from `carrier` through the downstream tracer.
    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        downstream?.extract(carrier, into: &context, using: extractor)
    }

    /// Injects `context` into `carrier` through the downstream tracer.
    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        downstream?.inject(context, into: &carrier, using: injector)
    }
}

/// The service-context key under which a `GraphSpan` names its node (its children's parent).
enum GraphSpanNodeKey: ServiceContextKey {
    typealias Value = AnyGraphTask
}

/// The service-context key under which a `GraphSpan` finds itself (`activeSpan(identifiedBy:)`).
enum GraphSpanKey: ServiceContextKey {
    typealias Value = GraphSpanHolder
}

/// A weak reference to a span from its own context (a strong one would keep it forever).
final class GraphSpanHolder: @unchecked Sendable { // `span` is set once, before it is shared
    weak var span: GraphSpan?
}

/// A span of `GraphTracer`: a node of kind `span`, and the downstream tracer's span, to which
/// everything is passed on.
public final class GraphSpan: Tracing.Span, @unchecked Sendable { // mutable state behind `state`
    private struct State {
        var operationName: String
        var attributes: SpanAttributes = [:]
        var failure: String?
        var ended = false
    }

    private let node: SpanNodes.Node
    private let inner: (any Tracing.Span)?
    private let state: Mutex<State>
    /// The span's context: what child spans and injected headers carry.
    public let context: ServiceContext

    init(node: SpanNodes.Node, inner: (any Tracing.Span)?, context: ServiceContext, operationName: String) {
        self.node = node
        self.inner = inner
        self.context = context
        state = Mutex(State(operationName: operationName))
    }

    /// The span's node in the graph.
    public var nodeID: NodeID { node.id }

    /// The span's name: set, it reaches the downstream span and renames the node (a
    /// `renamed` event; the node's name is cut to 4 KiB), while the span runs.
    public var operationName: String {
        get { state.withLock { $0.operationName } }
        set {
            state.withLock { $0.operationName = newValue }
            inner?.operationName = newValue
            SpanNodes.rename(node, newValue)
        }
    }

    /// The span's attributes; set ones reach the node (bounded) and the downstream span.
    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set {
            state.withLock { $0.attributes = newValue }
            inner?.attributes = newValue
            SpanNodes.attributes(node, Self.nodeAttributes(newValue))
        }
    }

    /// Attributes as text, sorted by key (a dictionary's order is not stable), at most 32.
    static func nodeAttributes(_ attributes: SpanAttributes) -> [NodeAttribute] {
        var list: [NodeAttribute] = []
        attributes.forEach { key, value in list.append(NodeAttribute(key, Self.text(value))) }
        list.sort { $0.key < $1.key }
        return Array(list.prefix(NodeAttribute.maxCount))
    }

    private static func text(_ value: SpanAttribute) -> String {
        switch value {
        case .string(let s): return s
        case .int32(let v): return String(v)
        case .int64(let v): return String(v)
        case .double(let v): return String(v)
        case .bool(let v): return String(v)
        default: return String(describing: value)
        }
    }

    /// Whether `end` was called.
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Whether the span records (the downstream span's answer; true without one).
    public var isRecording: Bool { inner?.isRecording ?? true }

    /// Sets the status: an error status fails the node when the span ends.
    public func setStatus(_ status: SpanStatus) {
        if status.code == .error {
            state.withLock { $0.failure = status.message ?? $0.failure ?? "error" }
        }
        inner?.setStatus(status)
    }

    /// Adds an event (the node shows its name; the downstream span gets it).
    public func addEvent(_ event: SpanEvent) {
        inner?.addEvent(event)
        SpanNodes.event(node, event.name)
    }

    /// Records an error: the node's failure message, and the downstream span's error.
    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        state.withLock { if $0.failure == nil { $0.failure = String(describing: error) } }
        inner?.recordError(error, attributes: attributes, at: instant())
    }

    /// Adds a link (passed on to the downstream span).
    public func addLink(_ link: SpanLink) {
        inner?.addLink(link)
    }

    /// Ends the span: the node settles (failed after an error status or error; cancelled when
    /// the graph cancelled it, or cancelled work inside it that then failed the span) and the
    /// downstream span ends, with status error `cancelled` when the node was cancelled.
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let failure: String?? = state.withLock { s in
            guard !s.ended else { return nil }
            s.ended = true
            return .some(s.failure)
        }
        if let failure, SpanNodes.end(node, failure: failure) {
            inner?.setStatus(SpanStatus(code: .error, message: TaskGraphSpanAttribute.cancelledStatus))
        }
        inner?.end(at: instant())
    }
}

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
/// to error or an error was recorded (the status message or the error's description). Its
/// parent is the innermost of the span of its parent context (when that is a node of this
/// graph) and `GraphScope.current`; a scope opened inside the span is its child. Span events
/// are shown as progress info; attributes (at most 32, cut at 256 bytes, text) are kept for
/// the detail pane and recorded. A span is not a task: cancelling its node cancels its
/// nearest scope or `GraphTask`.
public struct GraphTracer: Tracer {
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
        return GraphSpan(node: node, inner: inner, context: own, operationName: operationName)
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

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        downstream?.extract(carrier, into: &context, using: extractor)
    }

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
    public let context: ServiceContext

    init(node: SpanNodes.Node, inner: (any Tracing.Span)?, context: ServiceContext, operationName: String) {
        self.node = node
        self.inner = inner
        self.context = context
        state = Mutex(State(operationName: operationName))
    }

    /// The span's node in the graph.
    public var nodeID: NodeID { node.id }

    public var operationName: String {
        get { state.withLock { $0.operationName } }
        set {
            state.withLock { $0.operationName = newValue }
            inner?.operationName = newValue
        }
    }

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

    public var isRecording: Bool { inner?.isRecording ?? true }

    public func setStatus(_ status: SpanStatus) {
        if status.code == .error {
            state.withLock { $0.failure = status.message ?? $0.failure ?? "error" }
        }
        inner?.setStatus(status)
    }

    public func addEvent(_ event: SpanEvent) {
        inner?.addEvent(event)
        SpanNodes.event(node, event.name)
    }

    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        state.withLock { if $0.failure == nil { $0.failure = String(describing: error) } }
        inner?.recordError(error, attributes: attributes, at: instant())
    }

    public func addLink(_ link: SpanLink) {
        inner?.addLink(link)
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let failure: String?? = state.withLock { s in
            guard !s.ended else { return nil }
            s.ended = true
            return .some(s.failure)
        }
        inner?.end(at: instant())
        if let failure { SpanNodes.end(node, failure: failure) }
    }
}

import TaskGraph
import Tracing

/// Tracing a graph: its nodes as spans of a swift-distributed-tracing `Tracer`.
extension Graph {
    /// Reports every node of this graph that executes from now on as a span to `tracer`
    /// (default: the bootstrapped `InstrumentationSystem.tracer`), until `cancel()`.
    ///
    /// One span per node that executes (nodes never executed make none):
    /// - name: the node's name; parent: the span of the node's parent (the nearest traced
    ///   ancestor); a root's parent is `ServiceContext.current` at the moment it starts
    ///   executing, so a root started inside `withSpan` (say, a request's span with a context
    ///   extracted from an incoming W3C `traceparent`) joins that trace, across processes.
    /// - start when it becomes executing, end when it settles. Instants follow the graph's
    ///   clock from the wall-clock time of this call (so a virtual clock gives virtual times).
    /// - attributes `taskgraph.kind`, `taskgraph.id`, `taskgraph.weight`, and on cancel
    ///   `taskgraph.cancel.source` (who asked first).
    /// - a failure sets the status to error with the message, a cancel to error with the
    ///   description `cancelled`; each change of the progress `info` text is a span event
    ///   named by that text (at most 32 a span).
    ///
    /// Where the work happens: on a graph with the real clock (`MonotonicClock`, every
    /// program's), the program's threads only queue each event, as a recorder does, and a
    /// tracing thread of this observation starts and ends the spans, at the events' own
    /// instants, within about 20 ms (sooner when the program is busy). `serviceContext(for:)`,
    /// `Graph.flushObservers()` and `cancel()` first report everything queued, on the calling
    /// thread: after `flushObservers()` returns, the tracer has every span of what happened
    /// before. The root's context (`ServiceContext.current`) is still read on the thread
    /// that starts it. On any other clock (a `VirtualClock` in tests and simulations) the
    /// spans are made on the thread of each transition, before the call that caused it
    /// returns, so such runs stay deterministic.
    ///
    /// Spans still open when the observation is cancelled end then. Cancel the observation
    /// (or call `flushObservers()`) before shutting the tracer's exporter down, so that the
    /// last spans reach it.
    @discardableResult
    public func trace(with tracer: (any Tracer)? = nil) -> any GraphObservation {
        let chosen: any Tracer = tracer ?? InstrumentationSystem.tracer
        return GraphSpanTracer.start(graph: self, tracer: chosen)
    }

    /// The trace context of a node's span while it is open (to inject into an outgoing request,
    /// W3C traceparent, with the tracer's `inject`); nil when the node is not traced (no
    /// `trace(with:)` active, not executing yet, or already settled).
    public func serviceContext(for id: NodeID) -> ServiceContext? {
        TracingRegistry.shared.context(of: self, node: id.rawValue)
    }
}

/// The attribute names of a node's span (`Graph.trace(with:)`); `taskview export --format
/// otlp-json` writes the same.
public enum TaskGraphSpanAttribute {
    /// The node's kind (`task`, `sequential`, `retry`, ...), a string.
    public static let kind = "taskgraph.kind"
    /// The node's id in its graph, an integer.
    public static let id = "taskgraph.id"
    /// The node's weight in its parent's progress, a double.
    public static let weight = "taskgraph.weight"
    /// Who asked to cancel the node (`api`, `parent`, `timeout`, `keyboard`, ...), a string.
    public static let cancelSource = "taskgraph.cancel.source"
    /// The progress fraction when an `info` event was recorded, a double (on span events).
    public static let fraction = "taskgraph.fraction"
    /// The description of the error status of a cancelled node's span (and of a
    /// `GraphTracer` span cancelled from the graph).
    public static let cancelledStatus = "cancelled"
    /// At most this many progress events per span.
    public static let maxEvents = 32
}

import Logging
import TaskGraph

/// A swift-log `LogHandler` that files each record under the node current where it was
/// logged, and passes every record on to `wrapped` unchanged.
///
/// ```swift
/// LoggingSystem.bootstrap { label in
///     GraphLogHandler(label: label, forwardingTo: StreamLogHandler.standardError(label: label))
/// }
/// ```
///
/// The node is the innermost of `GraphScope.current` (a `withGraphTask` scope, or the body
/// of a `GraphTask.async` task) and the span of `GraphTracer` current in the task's
/// `ServiceContext`; it gets a `log` event (see `Graph.log(_:level:message:metadata:)`)
/// with the level, the message and the metadata (the handler's, the metadata provider's and
/// the call's, values as text). A record made outside any node is only forwarded. The wrapped
/// handler sees every record as before: level, message, metadata, source, file, function
/// and line. `logLevel`, `metadata` and `metadataProvider` are the wrapped handler's.
///
/// While nobody observes or records the graph, a record costs a task-local lookup and a
/// lock more than the wrapped handler alone.
public struct GraphLogHandler: LogHandler {
    /// The handler every record is passed on to.
    public var wrapped: any LogHandler
    /// The logger's label.
    public let label: String

    /// A handler for the logger labelled `label` that files records under nodes and
    /// forwards every record to `wrapped`.
    public init(label: String, forwardingTo wrapped: any LogHandler) {
        self.label = label
        self.wrapped = wrapped
    }

    /// Files the record under the current node (if any) and forwards it.
    public func log(event: LogEvent) {
        if let node = LogNodes.current() {
            LogNodes.record(
                node, level: event.level.rawValue, message: event.message.description,
                metadata: merged(event.metadata))
        }
        wrapped.log(event: event)
    }

    /// The record's metadata as the wrapped handler would print it: the handler's, then the
    /// provider's, then the call's (later ones win), values as text.
    private func merged(_ call: Logger.Metadata?) -> [String: String] {
        var all = wrapped.metadata
        if let provided = wrapped.metadataProvider?.get() {
            all.merge(provided) { _, new in new }
        }
        if let call { all.merge(call) { _, new in new } }
        return all.mapValues { $0.description }
    }

    /// The wrapped handler's metadata value for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    /// The wrapped handler's metadata.
    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    /// The wrapped handler's level.
    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    /// The wrapped handler's metadata provider.
    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }
}

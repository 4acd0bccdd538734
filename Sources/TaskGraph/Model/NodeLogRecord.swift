/// One log record filed under a node (`GraphChange.log`, see `Graph.log(_:level:message:metadata:)`):
/// what `GraphLogHandler` (module `TaskGraphLogging`) records for every swift-log call made
/// inside a scope, a `GraphTask` body or a `GraphTracer` span.
public struct NodeLogRecord: Sendable, Equatable {
    /// The message is cut to this many UTF-8 bytes, and `cutMarker` appended.
    public static let maxMessageBytes = 65_536
    /// What a cut message ends with.
    public static let cutMarker = "… [cut at 64 KiB]"
    /// At most this many metadata entries a record (the first ones by key are kept).
    public static let maxMetadataCount = 32

    /// The level as swift-log names it: `trace`, `debug`, `info`, `notice`, `warning`,
    /// `error` or `critical` (any other text is kept, cut to 64 bytes).
    public var level: String
    /// The message, at most `maxMessageBytes` bytes plus `cutMarker`.
    public var message: String
    /// The record's metadata, values as text (keys and values cut to 4 KiB).
    public var metadata: [String: String]
    /// Records of this graph dropped since the last one recorded (the budget of
    /// `Graph.logBudgetPerSecond` ran out): 0 normally.
    public var droppedBefore: Int

    /// A record, as given (no cuts: `Graph.log` cuts).
    public init(level: String, message: String, metadata: [String: String] = [:], droppedBefore: Int = 0) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.droppedBefore = droppedBefore
    }

    /// The record with its texts bounded as `Graph.log` records them.
    package static func bounded(level: String, message: String, metadata: [String: String], dropped: Int)
        -> NodeLogRecord
    {
        var kept: [String: String] = [:]
        if !metadata.isEmpty {
            for key in metadata.keys.sorted().prefix(maxMetadataCount) {
                kept[Graph.cut(key)] = Graph.cut(metadata[key] ?? "")
            }
        }
        return NodeLogRecord(
            level: level.utf8.count > 64 ? String(decoding: level.utf8.prefix(64), as: UTF8.self) : level,
            message: cutMessage(message), metadata: kept, droppedBefore: dropped)
    }

    /// `message` cut to `maxMessageBytes` UTF-8 bytes (on a scalar boundary) plus `cutMarker`.
    package static func cutMessage(_ message: String) -> String {
        guard message.utf8.count > maxMessageBytes else { return message }
        var bytes = 0
        var end = message.unicodeScalars.startIndex
        for scalar in message.unicodeScalars {
            let width = UTF8.width(scalar)
            if bytes + width > maxMessageBytes { break }
            bytes += width
            end = message.unicodeScalars.index(after: end)
        }
        return String(message.unicodeScalars[..<end]) + cutMarker
    }

    /// The levels in swift-log's order, least severe first.
    package static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The level's rank in `levels` (an unknown level ranks as `info`).
    package static func rank(_ level: String) -> Int {
        levels.firstIndex(of: level) ?? 2
    }
}

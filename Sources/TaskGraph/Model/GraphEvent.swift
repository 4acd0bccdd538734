/// One recorded change of a graph. The event sequence alone is enough to rebuild any
/// snapshot (see `GraphReplica`); it is what a replay log stores.
public struct GraphEvent: Sendable, Equatable {
    /// 1, 2, 3, ... per graph, without gaps.
    public var sequence: UInt64
    /// Seconds on the graph's clock.
    public var time: Double
    /// What changed.
    public var change: GraphChange

    /// An event of `change` with its sequence number and time.
    public init(sequence: UInt64, time: Double, change: GraphChange) {
        self.sequence = sequence
        self.time = time
        self.change = change
    }
}

/// What a `GraphEvent` records.
public enum GraphChange: Sendable, Equatable {
    /// A node was created. `parent`/`index` are set when it is created as a child directly
    /// (a `retry` attempt, a `then` closure's task).
    case added(id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?)
    /// A node was adopted by a composite as its subtask number `index`.
    case parentSet(id: NodeID, parent: NodeID, index: Int)
    /// The node's weight changed.
    case weightChanged(id: NodeID, weight: Double)
    /// The node's state changed. `failed`/`message` describe a failed completion. A successful
    /// completion also sets the node's fraction to 1.
    case stateChanged(id: NodeID, state: TaskState, failed: Bool, message: String?)
    /// The node's progress (own, or aggregated for composites) changed.
    case progress(id: NodeID, progress: TaskProgress)
    /// Somebody asked to cancel the node; `source` says who (`api`, `graph`, `parent`,
    /// `child`, `timeout`, `failFast`, `keyboard`, ...). A `stateChanged` follows when the
    /// request moved the node to `cancelled`.
    case cancelRequested(id: NodeID, source: String)
    /// Finished root subtrees released by retention.
    case dropped(ids: [NodeID])
    /// One line a node's process wrote (a command node, see `Graph.reportOutput`), cut to
    /// 4 KiB. It changes no state: replicas and snapshots ignore it; logs and views show it.
    case output(id: NodeID, stream: OutputStreamName, text: String)
    /// The node `id` (kind `ref`) stands for the shared node `of`: a later consumer of a task
    /// another composite adopted (one node per task). Follows the `added` of `id`.
    case ref(id: NodeID, of: NodeID)
    /// The node's attributes (a span's, recorded by `GraphTracer`; see `Graph.setAttributes`):
    /// the whole set, replacing any earlier one. It changes no state: replicas and snapshots
    /// ignore it; logs, exports and views show it.
    case attributes(id: NodeID, attributes: [NodeAttribute])
    /// The node `id` is a new attempt of the node `of`: a restart made it again from the same
    /// definition (see `Graph.recordAttempt(_:of:)`). Views draw it in the row of `of` (the
    /// first attempt; later restarts name the same node), with its descendants in the rows of
    /// the descendants at the same places, and do not draw the root holding it as a row of
    /// its own. It changes no state: replicas ignore it; logs, snapshots of logs and views
    /// keep it.
    case attempt(id: NodeID, of: NodeID)
    /// The node was renamed (a span whose operation name changed, see `Graph.rename`): its
    /// name is `name` from now on. Replicas, snapshots, logs and views take the new name.
    case renamed(id: NodeID, name: String)
    /// What the node has cost so far (a command's process tree: CPU seconds and peak RSS),
    /// at most once a second while it runs and once at its end; the newest one counts.
    /// Snapshots of logs keep it; the dashboard's `u` columns show it.
    case usage(id: NodeID, usage: NodeUsage)
    /// A warning about the node began (`text` says why: `slow: 3.4× its usual 12s`) or, with
    /// `text` nil, ended. `rule` is one of `WarningRule`'s. A node has at most one warning a
    /// rule. It changes no task state: replicas ignore it; logs, snapshots of logs and views
    /// keep each node's current warnings (see `Graph`'s `ignoresCancel` rule in the
    /// Cancelling article).
    case warn(id: NodeID, rule: String, text: String?)
    /// A log record filed under the node (see `Graph.log(_:level:message:metadata:)`). It
    /// changes no state: replicas and snapshots ignore it; logs, exports and views show it.
    case log(id: NodeID, record: NodeLogRecord)
    /// What retention dropped so far adds up to (see `Retention`), replacing the earlier
    /// summary: the dropped children of node `id`, or (`id` nil) the dropped finished roots
    /// named `root`. Follows the `dropped` that changed it. Replicas, snapshots, logs and
    /// views keep it (`GraphNode.droppedChildren`, `GraphSnapshot.droppedRoots`).
    case summary(id: NodeID?, root: String?, summary: ChildSummary)

    /// The node the change is about (nil for `dropped` and a roots' `summary`).
    public var nodeID: NodeID? {
        switch self {
        case .added(let id, _, _, _, _, _), .parentSet(let id, _, _), .weightChanged(let id, _),
            .stateChanged(let id, _, _, _), .progress(let id, _), .cancelRequested(let id, _),
            .output(let id, _, _), .ref(let id, _), .attributes(let id, _), .attempt(let id, _),
            .renamed(let id, _), .usage(let id, _), .warn(let id, _, _), .log(let id, _):
            return id
        case .dropped:
            return nil
        case .summary(let id, _, _):
            return id
        }
    }
}

/// One attribute of a node (a span's `key` and its value as text), as `Graph.setAttributes`
/// records it: keys and values cut to `NodeAttribute.maxBytes` UTF-8 bytes.
public struct NodeAttribute: Sendable, Equatable, Hashable {
    /// At most this many attributes a node (the first ones are kept).
    public static let maxCount = 32
    /// Keys and values are cut to this many UTF-8 bytes (on a Unicode scalar boundary).
    public static let maxBytes = 256

    /// The attribute's name (`http.request.method`).
    public var key: String
    /// Its value, as text.
    public var value: String

    /// An attribute; `key` and `value` are cut to `maxBytes` UTF-8 bytes (a NUL in them
    /// becomes U+FFFD).
    public init(_ key: String, _ value: String) {
        self.key = NodeAttribute.clean(key)
        self.value = NodeAttribute.clean(value)
    }

    private static func clean(_ text: String) -> String {
        let cut = cut(text)
        return cut.utf8.contains(0) ? cut.replacingNUL() : cut
    }

    /// The attributes as one text (keys and values separated by NUL, which JSON-escaped
    /// attributes never hold raw), for storage that keeps one text an event.
    static func pack(_ list: [NodeAttribute]) -> String {
        list.map { "\($0.key)\u{0}\($0.value)" }.joined(separator: "\u{0}")
    }

    /// The attributes `pack` made.
    @usableFromInline static func unpack(_ text: String) -> [NodeAttribute] {
        guard !text.isEmpty else { return [] }
        let parts = text.split(separator: "\u{0}", omittingEmptySubsequences: false)
        return stride(from: 0, to: parts.count - 1, by: 2).map {
            NodeAttribute(String(parts[$0]), String(parts[$0 + 1]))
        }
    }

    static func cut(_ text: String) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var bytes = 0
        var end = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            if bytes + width > maxBytes { break }
            bytes += width
            end = text.unicodeScalars.index(after: end)
        }
        return String(text.unicodeScalars[..<end])
    }
}

/// The rules of `GraphChange.warn`: warnings that compare a node with what is normal for it.
public enum WarningRule {
    /// Running much longer than its usual duration (taskview, from a scenario's run history).
    public static let slow = "slow"
    /// Running without progress or output for much longer than its usual longest gap
    /// (taskview).
    public static let silent = "silent"
    /// Cancelled, and still running its body after its grace: a scope whose body has not
    /// returned, or a `GraphTask.async` body still running, 1 s after the cancel (the graph
    /// applies this rule itself); a command that had to be killed after its grace.
    public static let ignoresCancel = "ignoresCancel"
    /// Every rule, in the order views list them.
    public static let all = [slow, silent, ignoresCancel]
}

/// Which stream of a process an `output` line came from.
public enum OutputStreamName: String, Sendable, Equatable, CaseIterable {
    /// Standard output.
    case stdout
    /// Standard error.
    case stderr
}

/// Where a cancel came from (`GraphChange.cancelRequested`'s `source`): the library's own
/// labels. Callers pass their own (taskview: `keyboard`, `quit`, `signal`).
public enum CancelSource {
    /// `cancel()` on the task, or a Swift task that awaited it and was cancelled.
    public static let api = "api"
    /// `Graph.cancel(_:source:)` without a source of its own.
    public static let graph = "graph"
    /// The task's parent cancelled it (downward).
    public static let parent = "parent"
    /// A subtask was cancelled by something other than its parent (upward).
    public static let child = "child"
    /// `timeout(seconds:)` ran out.
    public static let timeout = "timeout"
    /// A sibling failed: the group cancelled the subtasks still executing (fail fast).
    public static let failFast = "failFast"
    /// The last copy of a `pending` task's unsettled `Resolver` was released.
    public static let resolverReleased = "resolverReleased"
    /// A scope's Swift task was cancelled by its own program (AsyncScopes, "Outcome").
    public static let task = "task"
    /// A task skipped by `after(_:)`: a prerequisite failed, was cancelled or never ran.
    public static let needs = "needs"
}

extension String {
    fileprivate func replacingNUL() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }
}

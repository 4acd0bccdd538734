/// The identity of a node (a task) within one graph. Stable for the graph's life; ids are
/// handed out in creation order starting at 0.
public struct NodeID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The id as a number (>= 0).
    public let rawValue: Int
    /// The id with raw value `rawValue`.
    @inlinable public init(rawValue: Int) { self.rawValue = rawValue }
    /// The id with raw value `rawValue`.
    @inlinable public init(_ rawValue: Int) { self.rawValue = rawValue }
    /// Ids order by creation.
    public static func < (a: NodeID, b: NodeID) -> Bool { a.rawValue < b.rawValue }
    /// `#12`.
    public var description: String { "#\(rawValue)" }

    /// Decodes the id from a bare integer.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }
    /// Encodes the id as a bare integer.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// The kinds of node the library creates (`GraphNode.kind`).
public enum NodeKind {
    /// A leaf made with a closure, `succeed`, `fail` or `async`.
    public static let task = "task"
    /// A task settled from outside (`pending`).
    public static let pending = "pending"
    /// `delay(seconds:)`.
    public static let delay = "delay"
    /// `sequential`.
    public static let sequential = "sequential"
    /// `concurrent`.
    public static let concurrent = "concurrent"
    /// `allSettled`.
    public static let allSettled = "allSettled"
    /// `then`.
    public static let then = "then"
    /// `recover`.
    public static let recover = "recover"
    /// `chain`.
    public static let chain = "chain"
    /// The `map*` adapters (`mapResult`, `mapError`, `mapOutcome`, `mapProgress`).
    public static let map = "map"
    /// `timeout(seconds:)`.
    public static let timeout = "timeout"
    /// `retry(_:)`.
    public static let retry = "retry"
    /// `race`.
    public static let race = "race"
    /// `and`.
    public static let and = "and"
    /// `validate`.
    public static let validate = "validate"
    /// A later consumer's stand-in for a task another composite adopted (one node per
    /// task"): its state, progress and outcome follow that task (`GraphNode.refOf`).
    public static let ref = "ref"
    /// A real program run by a task (`GraphTask.command`, TaskGraphProcess).
    public static let command = "command"
    /// A piece of async code run by `withGraphTask` (the AsyncScopes article).
    public static let scope = "scope"
    /// A swift-distributed-tracing span made by `GraphTracer` (module `TaskGraphTracing`).
    public static let span = "span"
    /// A task that runs only after its prerequisites succeeded (`GraphTask.after(_:)`): the
    /// composite is the parent of the task it guards, so a view folds it into that row.
    public static let after = "after"
    /// A service run by `GraphService` (module `TaskGraphServiceLifecycle`): a scope around
    /// the service's `run()`; a wrapped `ServiceGroup` is one whose children are services.
    public static let service = "service"
    /// The row an attach session adds for each program it watches (`NAME (pid N)`): shown and
    /// recorded, but not one of the program's nodes.
    package static let attachedProgram = "program"
    /// Whether a node of `kind` counts in summaries (a log's `end` line, taskview's header,
    /// reports and JSON): every node but the `after` adapter, which a view folds into the row
    /// of the task it guards, so a node with `needs` counts once, and an attach session's
    /// program rows. The one place that decides which kinds count.
    package static func isCounted(_ kind: String) -> Bool { kind != after && kind != attachedProgram }

    /// Every kind above, in a fixed order (a node stores its kind as an index into it).
    public static let all = [
        task, pending, delay, sequential, concurrent, allSettled, then,
        recover, chain, map, timeout, retry, race, and, validate, ref, command, scope, span, after,
        service,
    ]
}

/// One node as found in a snapshot.
public struct GraphNode: Sendable, Equatable {
    /// The node's id.
    public let id: NodeID
    /// What the node is (see `NodeKind`), so a view can fold `map` adapters into their child.
    public let kind: String
    /// The parent's id; nil for a root.
    public let parent: NodeID?
    /// Children in subtask order.
    public let children: [NodeID]
    /// The task's name, as a view shows it.
    public let name: String
    /// The node's weight in its parent's progress (default 1).
    public let weight: Double
    /// The node's state.
    public let state: TaskState
    /// Completed with a failure.
    public let failed: Bool
    /// The node's own (for composites: aggregated, weighted) progress.
    public let progress: TaskProgress
    /// The error's description when failed.
    public let message: String?
    /// For a `ref` node: the shared node it stands for; nil for every other kind.
    public let refOf: NodeID?
    /// For a node of a graph that keeps start times (a served graph, from `serve()` on)
    /// that has begun executing: the graph-clock time it began. Nil otherwise.
    public let startTime: Double?
    /// For a settled node of a graph that keeps start times: the graph-clock time it
    /// settled. Nil otherwise.
    public let endTime: Double?
    /// What the children retention dropped from this node add up to (`Retention`'s
    /// `maxFinishedChildren`); nil when it dropped none.
    public package(set) var droppedChildren: ChildSummary? = nil

    /// A node with these fields (a view's tests build snapshots with it).
    public init(
        id: NodeID, kind: String, parent: NodeID?, children: [NodeID], name: String,
        weight: Double, state: TaskState, failed: Bool, progress: TaskProgress,
        message: String?, refOf: NodeID? = nil, startTime: Double? = nil, endTime: Double? = nil
    ) {
        self.id = id
        self.kind = kind
        self.parent = parent
        self.children = children
        self.name = name
        self.weight = weight
        self.state = state
        self.failed = failed
        self.progress = progress
        self.message = message
        self.refOf = refOf
        self.startTime = startTime
        self.endTime = endTime
    }
}

/// A consistent copy of every node of a graph at one point of its event sequence.
public struct GraphSnapshot: Sendable, Equatable {
    /// Every node of the graph (retention may have dropped finished roots), by id.
    public let nodes: [NodeID: GraphNode]
    /// Nodes without a parent, in creation order.
    public let roots: [NodeID]
    /// How many events were recorded before this snapshot: apply exactly the events with a
    /// greater sequence number to stay in step.
    public let sequence: UInt64
    /// The nodes' current warnings (`GraphChange.warn`): by node, each rule's text. Empty
    /// for most graphs.
    public var warnings: [NodeID: [String: String]] = [:]
    /// The finished roots retention dropped, summarized per root name (`Graph.droppedRoots`
    /// at the snapshot's point).
    public package(set) var droppedRoots: [String: ChildSummary] = [:]

    /// A snapshot with these nodes.
    public init(nodes: [NodeID: GraphNode], roots: [NodeID], sequence: UInt64) {
        self.nodes = nodes
        self.roots = roots
        self.sequence = sequence
    }

    /// The node `id`, or nil when the graph has no such node.
    public subscript(id: NodeID) -> GraphNode? { nodes[id] }

    /// An empty snapshot (no nodes, sequence 0).
    public static let empty = GraphSnapshot(nodes: [:], roots: [], sequence: 0)
}

/// Indices into `NodeKind.all`, which is how nodes store their kind.
@usableFromInline
enum KindIndex {
    @usableFromInline static let task: UInt8 = 0
    @usableFromInline static let pending: UInt8 = 1
    @usableFromInline static let delay: UInt8 = 2
    @usableFromInline static let sequential: UInt8 = 3
    @usableFromInline static let concurrent: UInt8 = 4
    @usableFromInline static let allSettled: UInt8 = 5
    @usableFromInline static let then: UInt8 = 6
    @usableFromInline static let recover: UInt8 = 7
    @usableFromInline static let chain: UInt8 = 8
    @usableFromInline static let map: UInt8 = 9
    @usableFromInline static let timeout: UInt8 = 10
    @usableFromInline static let retry: UInt8 = 11
    @usableFromInline static let race: UInt8 = 12
    @usableFromInline static let and: UInt8 = 13
    @usableFromInline static let validate: UInt8 = 14
    @usableFromInline static let ref: UInt8 = 15
    @usableFromInline static let command: UInt8 = 16
    @usableFromInline static let scope: UInt8 = 17
    @usableFromInline static let span: UInt8 = 18
    @usableFromInline static let after: UInt8 = 19
    @usableFromInline static let service: UInt8 = 20
}

import Synchronization

/// The recorded graph of tasks: parent/child structure, every state transition and every
/// progress report, each with a timestamp from the graph's clock.
///
/// Tasks join `Graph.shared` unless created with a `graph:` argument. Every property of a
/// task and `snapshot()` reflect every transition that happened before the call: recording
/// is synchronous with the transition. One lock per graph guards the graph's records and
/// the mutable state of all of its tasks, so a transition and its record are one step.
public final class Graph: @unchecked Sendable {   // mutable state behind `lock`
    /// The default graph. It drops finished root subtrees beyond `Retention.sharedDefault`.
    public static let shared = Graph(clock: MonotonicClock(), retention: .sharedDefault)

    /// The time source of every timestamp, `delay` and `timeout` of this graph.
    public let clock: any GraphClock

    @usableFromInline let lock = Lock()
    // Everything below is guarded by `lock`.
    @exclusivity(unchecked) var table = NodeTable()
    @exclusivity(unchecked) var sequence: UInt64 = 0
    @exclusivity(unchecked) var observers: [GraphObserver] = []
    @exclusivity(unchecked) var retentionPolicy: Retention?
    @exclusivity(unchecked) var finishedRoots: [(id: Int, time: Double)] = []
    @exclusivity(unchecked) var finishedRootsHead = 0
    /// Not-executed tasks cancelled while the graph could not reach them (see `cancel`).
    @exclusivity(unchecked) var pendingCancels: [Int: String] = [:]   // id -> cancel source
    /// `pendingCancels.count`, readable without the lock (tasks check it when touched).
    @usableFromInline let pendingCancelCount = Atomic<Int>(0)

    /// Creates a graph that keeps every node (no retention limit).
    public init(clock: any GraphClock = MonotonicClock()) {
        self.clock = clock
    }

    /// Creates a graph that drops finished root subtrees beyond `retention`.
    public init(clock: any GraphClock = MonotonicClock(), retention: Retention?) {
        self.clock = clock
        self.retentionPolicy = retention
    }

    /// How many finished root subtrees the graph keeps; nil keeps everything. Changing it
    /// applies at the next root that finishes.
    public var retention: Retention? {
        get { lock.withLock { retentionPolicy } }
        set { lock.withLock { retentionPolicy = newValue } }
    }

    /// A consistent copy of all nodes, reflecting every transition before the call.
    public func snapshot() -> GraphSnapshot {
        lock.withLock { snapshotLocked() }
    }

    func snapshotLocked() -> GraphSnapshot {
        var nodes: [NodeID: GraphNode] = [:]
        nodes.reserveCapacity(table.count)
        var roots: [NodeID] = []
        let messages = table.messages
        let refs = table.refs
        table.forEachLive { id, r in
            let nid = NodeID(id)
            nodes[nid] = GraphNode(
                id: nid, kind: r.kind, parent: r.parent >= 0 ? NodeID(r.parent) : nil,
                children: r.children, name: r.name, weight: r.weight, state: r.state,
                failed: r.failed, progress: TaskProgress(r.fraction, info: r.info),
                message: r.failed ? messages[id] : nil, refOf: refs[id].map { NodeID($0) })
            if r.parent < 0 { roots.append(nid) }
        }
        return GraphSnapshot(nodes: nodes, roots: roots, sequence: sequence)
    }

    /// Every event from now on, for async consumers. Each access makes a new stream; it
    /// buffers without limit, so read it (or use `observe(_:)` for synchronous work).
    public var events: AsyncStream<GraphEvent> {
        let (stream, continuation) = AsyncStream<GraphEvent>.makeStream()
        let observation = observe { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Calls `handler` with every event from now on, synchronously, in order, on the thread
    /// that caused it, before the call that caused it returns. It must be quick and must not
    /// call back into the graph. The observation lives until `cancel()`.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (GraphEvent) -> Void) -> any GraphObservation {
        let observer = GraphObserver(graph: self, handler: handler)
        lock.withLock { observers.append(observer) }
        return observer
    }

    /// Like `observe(_:)`, and atomically with it returns the snapshot the events continue:
    /// the first event the handler sees has sequence `snapshot.sequence + 1`.
    public func snapshotAndObserve(
        _ handler: @escaping @Sendable (GraphEvent) -> Void
    ) -> (snapshot: GraphSnapshot, observation: any GraphObservation) {
        let observer = GraphObserver(graph: self, handler: handler)
        let snap = lock.withLock { () -> GraphSnapshot in
            observers.append(observer)
            return snapshotLocked()
        }
        return (snap, observer)
    }

    /// Returns when every event recorded before the call has been delivered to every
    /// observer. Observers are called under the graph's lock as each event is recorded, so
    /// taking that lock once is enough: a delivery in progress on another thread finishes first.
    public func flushObservers() {
        lock.withLock {}
    }

    func removeObserver(_ observer: GraphObserver) {
        lock.withLock { observers.removeAll { $0 === observer } }
    }

    /// Cancels that node's task by the cancellation rules (subtree down, and upward to
    /// parents that cannot finish without it). `source` is recorded with the cancel.
    public func cancel(_ id: NodeID, source: String = CancelSource.graph) {
        let task: AnyGraphTask? = lock.withLock {
            guard table.contains(id.rawValue) else { return nil }
            if let t = reachableTaskLocked(id.rawValue) { return t }
            if table[id.rawValue].state == .notExecuted { pendingCancelLocked(id.rawValue, source: source) }
            return nil
        }
        task?.cancel(source: source)
    }

    /// Records one line of output of a node's process (what `TaskGraphProcess` commands call
    /// for every line they read) as an `output` event, for recorders and viewers. `text` is
    /// cut to 4 KiB. Costs one lock and a counter when nobody observes; unknown or dropped
    /// nodes are ignored.
    public func reportOutput(_ id: NodeID, stream: OutputStreamName, text: String) {
        lock.withLock {
            guard table.contains(id.rawValue) else { return }
            emit(.output(id: id, stream: stream, text: cut(text)))
        }
    }

    /// The node's task, if the graph can reach it: an executing task (the graph holds it), or
    /// a subtask of one, found through the drivers that hold their subtasks. A not-executed
    /// root held only by its owner cannot be reached (the graph holds no reference to it).
    func reachableTaskLocked(_ id: Int) -> AnyGraphTask? {
        var path: [Int] = []
        var at = id
        while true {
            guard table.contains(at) else { return nil }
            if let t = table[at].retained { return descendLocked(from: t, along: path) }
            let parent = table[at].parent
            guard parent >= 0 else { return nil }
            path.append(at)
            at = parent
        }
    }

    private func descendLocked(from top: AnyGraphTask, along path: [Int]) -> AnyGraphTask? {
        var t = top
        for id in path.reversed() {
            guard let d = t.driver, let child = d.children.first(where: { $0.rawID == id }) else { return nil }
            t = child
        }
        return t
    }

    /// Cancels a node whose task the graph cannot reach: the records change now (with their
    /// events), and the task object, if it still exists, takes the state when next touched.
    /// The upward rule applies to its parents the same way.
    func pendingCancelLocked(_ first: Int, source: String) {
        var id = first
        var src = source
        while table.contains(id), table[id].state == .notExecuted {
            if pendingCancels.updateValue(src, forKey: id) == nil {
                pendingCancelCount.add(1, ordering: .relaxed)
            }
            emit(.cancelRequested(id: NodeID(id), source: cut(src)))
            _ = setStateLocked(id, .cancelled)
            let parent = table[id].parent
            guard parent >= 0, table.contains(parent), table[parent].kind != NodeKind.allSettled else { return }
            id = parent
            src = CancelSource.child
        }
    }

}

/// How many finished root subtrees a graph keeps before dropping the oldest (with a `dropped`
/// event), so a long-running program does not grow without bound.
public struct Retention: Sendable, Equatable {
    /// Finished roots kept at most (>= 0).
    public var maxFinishedRoots: Int
    /// Finished roots older than this many seconds (graph clock) are dropped too; nil: no age limit.
    public var maxAge: Double?

    public init(maxFinishedRoots: Int, maxAge: Double? = nil) {
        self.maxFinishedRoots = max(0, maxFinishedRoots)
        self.maxAge = maxAge
    }

    /// `Graph.shared`'s policy: the last 1,000 finished roots, at most 10 minutes old.
    public static let sharedDefault = Retention(maxFinishedRoots: 1000, maxAge: 600)
}

/// A registration that lives until `cancel()`.
public protocol GraphObservation: Sendable {
    /// Stops it; safe to call more than once.
    func cancel()
}

final class GraphObserver: GraphObservation, @unchecked Sendable {   // immutable after init
    weak var graph: Graph?
    let handler: @Sendable (GraphEvent) -> Void

    init(graph: Graph, handler: @escaping @Sendable (GraphEvent) -> Void) {
        self.graph = graph
        self.handler = handler
    }

    func cancel() { graph?.removeObserver(self) }
}

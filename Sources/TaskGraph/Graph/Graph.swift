import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The recorded graph of tasks: parent/child structure, every state transition and every
/// progress report, each with a timestamp from the graph's clock.
///
/// Tasks join `Graph.shared` unless created with a `graph:` argument. Every property of a
/// task and `snapshot()` reflect every transition that happened before the call: recording
/// is synchronous with the transition. The graph's state is split into lock stripes
/// (`Stripe`): a task's mutable state and its node record are guarded by the lock of its
/// stripe, so a transition and its record are one step, and threads that run independent
/// tasks do not share a lock. Whole-graph operations (`snapshot`, `observe`) take every
/// stripe's lock, in order.
public final class Graph: @unchecked Sendable { // mutable state behind the stripes' locks
    /// The default graph. It drops finished root subtrees beyond `Retention.sharedDefault`
    /// (applied per lock stripe: a program that uses it from one thread keeps exactly that).
    public static let shared = Graph(clock: MonotonicClock(), retention: .sharedDefault)

    /// The time source of every timestamp, `delay` and `timeout` of this graph.
    public let clock: any GraphClock

    /// Number of lock stripes: a power of two, at least 16 and at least the number of cores,
    /// so that threads dealt stripes round-robin (`Trampoline.stripe`) share none as long as
    /// there are no more of them than that.
    @usableFromInline static let stripeCount: Int = {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var n = 16
        while n < cores && n < 1024 { n <<= 1 }
        return n
    }()
    @usableFromInline let stripes: ContiguousArray<Stripe>
    /// The same stripes, unretained: a task's hot path reaches its stripe without the
    /// retain/release pair an array element costs (`stripes` keeps them alive).
    @usableFromInline let stripeRefs: UnsafeMutablePointer<Unmanaged<Stripe>>
    // The padding keeps `nextBlock`, written by every thread once per 64 nodes, off the
    // cache line of the fields every task reads (`stripeRefs`, `observed`).
    private let paddingBefore = CacheLinePadding()
    /// The next block of ids to claim (`Stripe.append`).
    let nextBlock = Atomic<Int>(0)
    private let paddingAfter = CacheLinePadding()

    // Written with every stripe locked, so read under any one stripe's lock.
    @exclusivity(unchecked) var retentionPolicy: Retention?
    /// Whether somebody observes: events then take `eventLock` to get their number.
    @exclusivity(unchecked) var observed = false
    /// Whether executing nodes keep the time they began (`NodeTable.starts`), for snapshots
    /// (`GraphNode.startTime`): set once by `serve()`, so that work begun before a viewer
    /// attached shows how long it has run. Costs a clock reading and a table entry per
    /// executing node, only in a served graph.
    @exclusivity(unchecked) var keepsStartTimes = false
    /// Events counted before the stripes' own counters (see `sequenceLocked`).
    @exclusivity(unchecked) var baseSequence: UInt64 = 0

    /// What the finished roots retention dropped add up to, by root name, over every stripe:
    /// each `summary` event of a root name carries the whole graph's figures (a tally per
    /// stripe made each event tell one stripe's). Taken inside a stripe lock, and around the
    /// emission of those events, so they leave in the order of their counts.
    let droppedRootTallies = Mutex<[String: ChildTally]>([:])
    /// Guards the observers and the sequence of observed events; taken inside a stripe lock.
    /// While one stripe alone records (`soleStripe`), that stripe's lock does this for the
    /// events: see `withDeliveriesPaused`.
    let eventLock = Lock()
    /// While observed: the index of the one stripe that holds nodes, whose lock then keeps
    /// deliveries apart (a program that uses the graph from one thread never takes the event
    /// lock); `Graph.noSoleStripe` once a second stripe holds nodes; `Graph.soleStripeUnclaimed`
    /// while none does (the first root claims it). Changed with every stripe and the event
    /// lock held, so stable under either; a root made on another stripe changes it first
    /// (`admitRootLocked`), before its node exists.
    let soleStripe = Atomic<Int>(Graph.noSoleStripe)
    static var noSoleStripe: Int { -1 }
    static var soleStripeUnclaimed: Int { -2 }
    @exclusivity(unchecked) var eventSequence: UInt64 = 0
    /// Observed events' times when `clock` is a `MonotonicClock` (under `eventLock`).
    @exclusivity(unchecked) var eventClock = EventClock()
    @exclusivity(unchecked) var observers: [GraphObserver] = [] {
        didSet { rebuildDeliveryList() }
    }
    /// `observers`, unretained (the array keeps them alive), for delivery: iterating the array
    /// itself retained and released its buffer on every event.
    @exclusivity(unchecked) var deliveryList = UnsafeMutableBufferPointer<Unmanaged<GraphObserver>>(
        start: nil, count: 0)
    /// Whether the last observer keeps events (recorder, server): it then gets each event by value.
    @exclusivity(unchecked) var lastObserverKeeps = false
    /// Whether `clock` is a `MonotonicClock`, read then without a call through the protocol.
    let clockIsMonotonic: Bool
    /// Whether observed events read the cycle counter (a `MonotonicClock` on a machine whose
    /// counter the kernel trusts; see `EventClock`), before taking `eventLock`.
    let readsCycles: Bool
    /// What observations hold of this graph (instead of a weak reference; see `GraphAnchor`).
    /// `package`: TaskGraphTracing's registry holds it too, for the same reason.
    package let anchor = GraphAnchor()
    /// Bodies still running after a cancel, and the current warnings (`Graph+Warnings.swift`).
    let cancelWatch = CancelWatch()

    /// Guards `pendingCancels`; taken inside a stripe lock.
    let pendingLock = Lock()
    /// Not-executed tasks cancelled while the graph could not reach them (see `cancel`).
    @exclusivity(unchecked) var pendingCancels: [Int: String] = [:] // id -> cancel source
    /// `pendingCancels.count`, readable without the lock (tasks check it when touched).
    @usableFromInline let pendingCancelCount = Atomic<Int>(0)

    /// Whether a scope (`withGraphTask`, or the body of a `GraphTask.async`) ever ran in this
    /// graph: only then does a root's `execute()` look for a current scope to join (a
    /// task-local lookup), so a program that never makes one pays one relaxed load for it.
    let scopesMade = Atomic<Bool>(false)
    /// The scopes whose derived progress is not recorded yet (recorded before any capture or
    /// observation: see `UnrecordedProgress`).
    let unrecordedProgress = UnrecordedProgress()
    /// How many log records a second are recorded while observed (`Graph+Log.swift`).
    let logBudget = LogBudget()

    /// Creates a graph that keeps every node (no retention limit).
    public convenience init(clock: any GraphClock = MonotonicClock()) {
        self.init(clock: clock, retention: nil)
    }

    /// Creates a graph that drops finished root subtrees beyond `retention`.
    public init(clock: any GraphClock = MonotonicClock(), retention: Retention?) {
        self.clock = clock
        self.clockIsMonotonic = clock is MonotonicClock
        self.readsCycles = clockIsMonotonic && EventClock.counterIsTrusted
        self.retentionPolicy = retention
        let stripes = ContiguousArray((0..<Graph.stripeCount).map { Stripe(index: $0) })
        self.stripes = stripes
        stripeRefs = .allocate(capacity: stripes.count)
        for (i, s) in stripes.enumerated() { (stripeRefs + i).initialize(to: .passUnretained(s)) }
        anchor.attach(self)
    }

    deinit {
        anchor.detach()
        deliveryList.deallocate()
        stripeRefs.deallocate()
    }

    /// How many finished root subtrees the graph keeps; nil keeps everything. Changing it
    /// applies at the next root that finishes. Each lock stripe applies it to its own
    /// finished roots.
    public var retention: Retention? {
        get { withAllStripes { retentionPolicy } }
        set { withAllStripes { retentionPolicy = newValue } }
    }

    /// A consistent copy of all nodes, reflecting every transition before the call.
    public func snapshot() -> GraphSnapshot {
        var storage = GraphCapture.storage(for: nodeCountHint())
        return withAllStripes { captureLocked(into: &storage) }.snapshot()
    }

    /// Every event from now on, for async consumers. Each access makes a new stream; it
    /// buffers without limit, so read it (or use `observe(_:)` for synchronous work).
    public var events: AsyncStream<GraphEvent> {
        let (stream, continuation) = AsyncStream<GraphEvent>.makeStream()
        let observation = observe { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Calls `handler` with every event from now on, in order, never concurrently with
    /// itself, before the call that caused the event returns (so on the thread that caused
    /// it: synchronously when the graph is used from one thread). It must be quick and must
    /// not call back into the graph. The observation lives until `cancel()`.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (GraphEvent) -> Void) -> any GraphObservation {
        let observer = GraphObserver(graph: self, handler: handler)
        withAllStripes { addObserverLocked(observer) }
        return observer
    }

    /// Like `observe(_:)`, and atomically with it returns the snapshot the events continue:
    /// the first event the handler sees has sequence `snapshot.sequence + 1`.
    public func snapshotAndObserve(
        _ handler: @escaping @Sendable (GraphEvent) -> Void
    ) -> (snapshot: GraphSnapshot, observation: any GraphObservation) {
        let observer = GraphObserver(graph: self, handler: handler)
        var storage = GraphCapture.storage(for: nodeCountHint())
        let capture = withAllStripes { () -> GraphCapture in
            addObserverLocked(observer)
            return captureLocked(into: &storage)
        }
        return (capture.snapshot(), observer)
    }

    /// `snapshotAndObserve` for the library's own observers, which keep each event (`sink`
    /// takes it by value, saving a copy per event). `package`: TaskGraphTracing keeps them too.
    /// `pair`, when given, takes the two events of one step (a cancel request and the state
    /// change it makes) in one call, so the sink can queue both at once.
    /// (Not an optional parameter: a closure stored in an `Optional` is called through two
    /// reabstraction thunks.)
    /// `owner` is kept alive until the observation is cancelled (the sinks need not capture it).
    /// `flush`, when given, is called by `flushObservers()` (outside the graph's locks, after
    /// every earlier event was handed over): an observer that finishes its work on a thread
    /// of its own (spans) does what is pending.
    package func snapshotAndKeep(
        owner: AnyObject & Sendable,
        _ sink: @escaping @Sendable (consuming GraphEvent) -> Void,
        pair: @escaping @Sendable (consuming GraphEvent, consuming GraphEvent) -> Void,
        flush: (@Sendable () -> Void)? = nil
    ) -> (snapshot: GraphSnapshot, observation: any GraphObservation) {
        snapshotAndKeep(GraphObserver(graph: self, owner: owner, sink: sink, pair: pair, flush: flush))
    }

    package func snapshotAndKeep(
        _ sink: @escaping @Sendable (consuming GraphEvent) -> Void
    ) -> (snapshot: GraphSnapshot, observation: any GraphObservation) {
        snapshotAndKeep(GraphObserver(graph: self, sink: sink))
    }

    private func snapshotAndKeep(_ observer: GraphObserver) -> (
        snapshot: GraphSnapshot, observation: any GraphObservation
    ) {
        var storage = GraphCapture.storage(for: nodeCountHint())
        let capture = withAllStripes { () -> GraphCapture in
            addObserverLocked(observer)
            return captureLocked(into: &storage)
        }
        return (capture.snapshot(), observer)
    }

    /// Returns when every event recorded before the call has been delivered to every
    /// observer, and (`trace(with:)`) reported as spans. Observers are called as each event
    /// is recorded, kept apart by a lock, so taking that lock once is enough: a delivery in
    /// progress on another thread finishes first. Then observers that finish their work on a
    /// thread of their own do what is pending, on this thread.
    public func flushObservers() {
        let hooks = withDeliveriesPaused { observers.compactMap(\.flush) }
        for hook in hooks { hook() }
    }

    /// Cancels that node's task by the cancellation rules (subtree down, and upward to
    /// parents that cannot finish without it). `source` is recorded with the cancel.
    /// A span (`GraphTracer`) is not a task: cancelling one cancels its nearest ancestor that
    /// is (a scope or a task), and does nothing when it has none.
    public func cancel(_ id: NodeID, source: String = CancelSource.graph) {
        let task: AnyGraphTask? = withAllStripes {
            guard var (s, slot) = locateLocked(id.rawValue) else { return nil }
            var target = id.rawValue
            while s[slot].kindIndex == KindIndex.span {
                let p = s[slot].parent
                guard p >= 0, let found = locateLocked(p) else { return nil }
                (s, slot) = found
                target = p
            }
            if let t = reachableTaskLocked(s, target) { return t }
            if s[slot].state == .notExecuted { pendingCancelLocked(s, target, source: source) }
            return nil
        }
        if let instead = (task?.driver as? ScopeDriver)?.cancelInstead {
            instead()
            return
        }
        task?.cancel(source: source)
    }

    /// Records one line of output of a node's process (what `TaskGraphProcess` commands call
    /// for every line they read) as an `output` event, for recorders and viewers. `text` is
    /// cut to 4 KiB. Takes one stripe's lock at a time: the node's stripe is found by its id
    /// block (`Stripe.slot(of:)`). Unknown or dropped nodes are ignored.
    public func reportOutput(_ id: NodeID, stream: OutputStreamName, text: String) {
        let raw = id.rawValue
        guard raw >= 0 else { return }
        for s in stripes {
            s.lock.lock()
            if s.slot(of: raw) != nil {
                emit(s, .output(id: id, stream: stream, text: cut(text)))
                s.lock.unlock()
                return
            }
            s.lock.unlock()
        }
        // Not found one stripe at a time: it may have moved between two stripes meanwhile
        // (an adoption across stripes), so look once more with every stripe locked.
        withAllStripes {
            guard let (s, _) = locateLocked(raw) else { return }
            emit(s, .output(id: id, stream: stream, text: cut(text)))
        }
    }

    /// Records the attributes of node `id` (a span's: what `GraphTracer` calls when a span's
    /// attributes change) as an `attributes` event, replacing its earlier ones: at most
    /// `NodeAttribute.maxCount` (the first ones are kept), keys and values cut to
    /// `NodeAttribute.maxBytes`. Unknown or dropped nodes are ignored.
    public func setAttributes(_ id: NodeID, _ attributes: [NodeAttribute]) {
        let raw = id.rawValue
        guard raw >= 0 else { return }
        let kept = Array(attributes.prefix(NodeAttribute.maxCount))
        withAllStripes {
            guard let (s, _) = locateLocked(raw) else { return }
            emit(s, .attributes(id: id, attributes: kept))
        }
    }

    /// Renames node `id` (what `GraphTracer` calls when a span's operation name changes):
    /// the graph's node table takes `name`, cut to 4 KiB like a name at creation (views
    /// sanitize it like any name), so later snapshots carry it, and a `renamed` event records
    /// it. Unknown or dropped nodes, and a name equal to the node's, are ignored.
    public func rename(_ id: NodeID, to name: String) {
        let raw = id.rawValue
        guard raw >= 0 else { return }
        let name = cut(name)
        withAllStripes {
            guard let (s, slot) = locateLocked(raw), s[slot].name != name else { return }
            s.modify(slot) { $0.name = name }
            emit(s, .renamed(id: id, name: name))
        }
    }

    /// Records that node `id` is a new attempt of node `of` (an `attempt` event): a restart
    /// made `id` again from the definition `of` was made from, because states only move
    /// forward. Viewers (taskview's dashboard, replay, attach) draw it in the row of `of`,
    /// its descendants in the rows of the descendants at the same places, and do not draw
    /// the root holding it as a row of its own. Pass the first attempt as `of` every time
    /// (a second restart of the same row names the same node). Call it after the new
    /// attempt's tree is built and before it executes. Unknown or dropped nodes are ignored.
    public func recordAttempt(_ id: NodeID, of: NodeID) {
        let raw = id.rawValue
        guard raw >= 0, of.rawValue >= 0 else { return }
        withAllStripes {
            guard let (s, _) = locateLocked(raw) else { return }
            emit(s, .attempt(id: id, of: of))
        }
    }
}

/// How many finished root subtrees a graph keeps before dropping the oldest (with a `dropped`
/// event), and how many finished children a running node keeps, so a long-running program
/// does not grow without bound. What was dropped stays summarized: `Graph.droppedRoots` per
/// root name, `GraphNode.droppedChildren` per parent (a `summary` event each time it changes).
public struct Retention: Sendable, Equatable {
    /// Finished roots kept at most (>= 0), per lock stripe of the graph: a program that uses
    /// the graph from one thread keeps exactly this many; one whose threads use several
    /// stripes keeps up to this many per stripe.
    public var maxFinishedRoots: Int
    /// Finished roots older than this many seconds (graph clock) are dropped too; nil: no age limit.
    public var maxAge: Double?
    /// Finished children a running node keeps at most (>= 0), failed ones included: beyond
    /// it the oldest finished child subtrees are dropped, succeeded and cancelled ones first.
    public var maxFinishedChildren: Int
    /// Failed children a running node keeps at most (>= 0): failed ones are dropped only
    /// beyond this, or when `maxFinishedChildren` holds nothing else.
    public var maxFailedChildren: Int

    /// Keeps at most `maxFinishedRoots` finished roots, and none older than `maxAge` seconds
    /// when given; a running node keeps at most `maxFinishedChildren` finished children, of
    /// which failed ones are kept first, up to `maxFailedChildren`. Negative counts count as 0.
    public init(
        maxFinishedRoots: Int, maxAge: Double? = nil, maxFinishedChildren: Int = 1_000, maxFailedChildren: Int = 100
    ) {
        self.maxFinishedRoots = max(0, maxFinishedRoots)
        self.maxAge = maxAge
        self.maxFinishedChildren = max(0, maxFinishedChildren)
        self.maxFailedChildren = max(0, maxFailedChildren)
    }

    /// `Graph.shared`'s policy: the last 1,000 finished roots, at most 10 minutes old; 1,000
    /// finished children a running node (100 of them failed ones).
    public static let sharedDefault = Retention(maxFinishedRoots: 1000, maxAge: 600)
}

/// A registration that lives until `cancel()`.
public protocol GraphObservation: Sendable {
    /// Stops it; safe to call more than once.
    func cancel()
}

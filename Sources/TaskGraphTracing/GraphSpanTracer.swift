import TaskGraph
import Tracing

/// Starts the tracing of a graph (`Graph.trace(with:)`).
enum GraphSpanTracer {
    static func start(graph: Graph, tracer: any Tracer) -> any GraphObservation {
        // On a real clock the spans are made off the program's threads (see `NodeSpans`); on
        // any other clock (a virtual one, in tests and simulations) as each event happens, so
        // such runs stay deterministic.
        let spans = NodeSpans(tracer: tracer, graph: graph, deferred: graph.clock is MonotonicClock)
        let observation = spans.start(graph)
        TracingRegistry.shared.add(spans)
        return TraceObservation(spans: spans, observation: observation)
    }
}

/// What `Graph.trace(with:)` returns: cancelling stops the spans and ends those still open.
final class TraceObservation: GraphObservation {
    private let spans: any ContextSource
    private let observation: any GraphObservation

    init(spans: any ContextSource, observation: any GraphObservation) {
        self.spans = spans
        self.observation = observation
    }

    func cancel() {
        observation.cancel()
        TracingRegistry.shared.remove(spans)
        spans.endAll()
    }
}

/// A task-local trace context taken on the program's thread, for the tracing thread.
private final class ContextNote: @unchecked Sendable { // immutable
    let context: ServiceContext
    init(_ context: ServiceContext) { self.context = context }
}

/// The spans of one traced graph.
///
/// Deferred (a graph on the real clock): the program's threads only queue each event (an
/// `EventRelay`, as a recorder does), plus the task-local `ServiceContext.current` when a
/// node starts executing and one is set; the spans are started, given their attributes and
/// ended on a tracing thread, at the events' own instants, within about 20 ms. Whoever needs
/// them now (`serviceContext(for:)`, `Graph.flushObservers()`, `cancel()`) first does what
/// is queued, on its own thread. Otherwise every event is handled as it happens.
///
/// `lock` serializes the table's users. Not generic over the tracer on purpose: a generic
/// class instantiated from another module runs unspecialized, looking its metadata up at
/// run time on every event. The state is one struct behind a pointer: `lock` already makes
/// access exclusive, and a stored `var` paid a dynamic exclusivity check per event.
final class NodeSpans: ContextSource, @unchecked Sendable { // `table` behind `lock`
    let anchor: GraphAnchor
    private let tracer: any Tracer
    private let clock: SpanClock
    private let lock = Lock()
    private let table: UnsafeMutablePointer<SpanTable>
    private let relay: EventRelay?
    /// Set by `endAll()`: the tracing thread stops.
    private var stopped = false

    /// How often the tracing thread looks for events when no chunk of them is full.
    static let drainMilliseconds = 20

    init(tracer: any Tracer, graph: Graph, deferred: Bool) {
        anchor = graph.anchor
        self.tracer = tracer
        clock = SpanClock(graphNow: graph.clock.now)
        table = .allocate(capacity: 1)
        table.initialize(to: SpanTable())
        relay = deferred ? EventRelay() : nil
    }

    deinit {
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Registers with the graph. Atomically with registration, the snapshot tells the names,
    /// kinds and parents of the nodes that exist already (they may execute later); `lock` is
    /// held until the table is seeded, so no event is handled before (lock order: ours, then
    /// the graph's, only here, before any event can reach us). Nodes already executing get
    /// no span (their children's spans attach above them).
    func start(_ graph: Graph) -> any GraphObservation {
        lock.lock()
        defer { lock.unlock() }
        let snapshot: GraphSnapshot
        let observation: any GraphObservation
        if let relay {
            (snapshot, observation) = relay.observe(
                graph, owner: self, textOnly: true,
                note: {
                    TaskLocalContext.current().map { ContextNote($0) }
                }, flush: { [weak self] in self?.drain() })
            relay.startConsumer(milliseconds: NodeSpans.drainMilliseconds) { [weak self] in
                self?.drain() ?? false
            }
        } else {
            // A keeping observer: each event is handed over, not copied.
            (snapshot, observation) = graph.snapshotAndKeep { [self] event in
                lock.lock()
                handleLocked(event, note: nil, taskLocal: true)
                lock.unlock()
            }
        }
        table.pointee.seed(snapshot)
        return observation
    }

    func flush() { drain() }

    /// Handles every queued event; false once tracing stopped.
    @discardableResult
    func drain() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return false }
        drainLocked()
        return true
    }

    private func drainLocked() {
        lock.assertHeld()
        relay?.drain { (event: consuming GraphEvent, note: AnyObject?) in
            handleLocked(consume event, note: note, taskLocal: false)
        }
    }

    /// One event, taken apart once (the table's methods get its fields; switching on a
    /// borrowed event copied the whole event, and its strings, per event). The caller's trace
    /// context when the node started executing: the task-local one (`taskLocal`), else the
    /// one `note` carries.
    private func handleLocked(_ event: consuming GraphEvent, note: AnyObject?, taskLocal: Bool) {
        lock.assertHeld()
        let time = event.time
        var fold = SpanEvents(spans: self, note: note, taskLocal: taskLocal)
        fold.apply((consume event).change, time: time)
    }

    /// The spans' fold of one event (`GraphFold`, specialized: no call through the protocol).
    private struct SpanEvents: GraphFold {
        // Lives for one event, while `spans` handles it.
        unowned(unsafe) let spans: NodeSpans
        let note: AnyObject?
        let taskLocal: Bool

        /// Looked up only when a node starts executing.
        var root: ServiceContext? { taskLocal ? TaskLocalContext.current() : (note as? ContextNote)?.context }

        var table: UnsafeMutablePointer<SpanTable> { spans.table }

        func nodeAdded(
            id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double
        ) {
            table.pointee.add(id.rawValue, name: name, kind: kind, weight: weight, parent: parent?.rawValue ?? -1)
        }

        func stateChanged(id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double) {
            if state == .executing {
                table.pointee.start(id.rawValue, tracer: spans.tracer, at: spans.clock.instant(time), root: root)
            } else if state.isSettled {
                var cancelSource: String?
                let settled = table.pointee.settle(id.rawValue, cancelSource: &cancelSource)
                guard let span = consume settled else { return }
                if state == .cancelled {
                    if let cancelSource {
                        span.attributes.set(TaskGraphSpanAttribute.cancelSource, value: .string(cancelSource))
                    }
                    span.setStatus(SpanStatus(code: .error, message: TaskGraphSpanAttribute.cancelledStatus))
                }
                if failed { span.setStatus(SpanStatus(code: .error, message: message)) }
                span.end(at: spans.clock.instant(time))
            }
        }

        func progressReported(id: NodeID, progress: TaskProgress, time: Double) {
            guard let info = progress.info else { return }
            table.pointee.progress(id.rawValue, info: info, fraction: progress.fraction, at: spans.clock.instant(time))
        }

        func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double) {
            table.pointee.setParent(id.rawValue, parent.rawValue)
        }

        func weightChanged(id: NodeID, weight: Double, time: Double) {
            table.pointee.setWeight(id.rawValue, weight)
        }

        func renamed(id: NodeID, name: String, time: Double) {
            table.pointee.rename(id.rawValue, name)
        }

        func cancelRequested(id: NodeID, source: String, time: Double) {
            table.pointee.cancelRequested(id.rawValue, source: source)
        }

        func nodesDropped(ids: [NodeID], time: Double) {
            table.pointee.drop(ids)
        }

        // Output lines reach the span as progress info already; refs, attributes (set on the
        // span directly) and attempts change no span: the defaults ignore them.
        func refSet(id: NodeID, of: NodeID, time: Double) {}
    }

    func context(for id: Int) -> ServiceContext? {
        lock.withLock {
            guard !stopped else { return nil }
            drainLocked()
            return table.pointee.context(for: id)
        }
    }

    /// After the observation was cancelled (no more events come): what is queued, then the
    /// spans still open end now.
    func endAll() {
        let open = lock.withLock { () -> [any Span] in
            guard !stopped else { return [] }
            drainLocked()
            stopped = true
            relay?.close()
            return table.pointee.removeAll()
        }
        let now = DefaultTracerClock.now
        for span in open { span.end(at: now) }
    }
}

/// Span instants on the graph's clock: wall-clock nanoseconds at graph-clock time `clockZero`
/// (so a virtual clock gives virtual times).
struct SpanClock {
    private let wallZero: UInt64
    private let clockZero: Double

    init(graphNow: Double) {
        wallZero = DefaultTracerClock.now.nanosecondsSinceEpoch
        clockZero = graphNow
    }

    func instant(_ time: Double) -> DefaultTracerClock.Timestamp {
        let offset = (time - clockZero) * 1e9
        let ns = offset >= 0 ? wallZero &+ UInt64(offset) : wallZero &- UInt64(min(-offset, Double(wallZero)))
        return DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: ns)
    }
}

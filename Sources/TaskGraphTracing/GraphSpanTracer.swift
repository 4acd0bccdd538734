import TaskGraph
import Tracing

/// Starts the tracing of a graph (`Graph.trace(with:)`).
enum GraphSpanTracer {
    static func start(graph: Graph, tracer: any Tracer) -> any GraphObservation {
        let spans = NodeSpans(tracer: tracer, graph: graph)
        // Atomically with registration, the snapshot tells the names, kinds and parents of the
        // nodes that exist already (they may execute later). `spans` stays locked until it is
        // seeded, so an event on another thread waits for it (lock order: ours, then the
        // graph's, only here, before any event can reach us). A keeping observer: each event
        // is handed over, not copied (its strings are moved into the table, not retained).
        let observation = spans.seeded {
            graph.snapshotAndKeep { [spans] event in spans.handle(event) }
        }
        let handle = TraceObservation(spans: spans, observation: observation)
        TracingRegistry.shared.add(spans)
        return handle
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

/// The spans of one traced graph. Events arrive under the graph's lock (in order); `lock`
/// also serves `serviceContext(for:)` from other threads. Not generic over the tracer on
/// purpose: a generic class instantiated from another module runs unspecialized, looking its
/// metadata up at run time on every event (a quarter of its time, profiled). The state is one
/// struct kept behind a pointer: `lock` already makes access exclusive, and a stored `var`
/// paid a dynamic exclusivity check per event.
final class NodeSpans: ContextSource, @unchecked Sendable {   // `table` behind `lock`
    let anchor: GraphAnchor
    private let tracer: any Tracer
    private let clock: SpanClock
    private let lock = Lock()
    private let table: UnsafeMutablePointer<SpanTable>

    init(tracer: any Tracer, graph: Graph) {
        anchor = graph.anchor
        self.tracer = tracer
        clock = SpanClock(graphNow: graph.clock.now)
        table = .allocate(capacity: 1)
        table.initialize(to: SpanTable())
    }

    deinit {
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Nodes that existed before tracing began: remembered so they get spans if they execute.
    /// Nodes already executing get none (their children's spans attach above them).
    func seeded(_ register: () -> (snapshot: GraphSnapshot, observation: any GraphObservation)) -> any GraphObservation {
        lock.lock()
        defer { lock.unlock() }
        let (snapshot, observation) = register()
        table.pointee.seed(snapshot)
        return observation
    }

    /// One event, taken apart once here (the table's methods get its fields; switching on a
    /// borrowed event copied the whole event, and its strings, per event). Only the table's
    /// bookkeeping runs under `lock`; a settled span is finished after it.
    func handle(_ event: consuming GraphEvent) {
        let time = event.time
        let change = (consume event).change
        switch consume change {
        case let .added(id, kind, name, weight, parent, _):
            lock.lock()
            table.pointee.add(id.rawValue, name: name, kind: kind, weight: weight, parent: parent?.rawValue ?? -1)
            lock.unlock()
        case let .stateChanged(id, state, failed, message):
            if state == .executing {
                lock.lock()
                table.pointee.start(id.rawValue, tracer: tracer, at: clock.instant(time))
                lock.unlock()
            } else if state.isSettled {
                var cancelSource: String?
                lock.lock()
                let settled = table.pointee.settle(id.rawValue, cancelSource: &cancelSource)
                lock.unlock()
                guard let span = consume settled else { return }
                if state == .cancelled, let cancelSource {
                    span.attributes.set(TaskGraphSpanAttribute.cancelSource, value: .string(cancelSource))
                }
                if failed { span.setStatus(SpanStatus(code: .error, message: message)) }
                span.end(at: clock.instant(time))
            }
        case let .progress(id, progress):
            guard let info = progress.info else { return }
            lock.lock()
            table.pointee.progress(id.rawValue, info: info, fraction: progress.fraction, at: clock.instant(time))
            lock.unlock()
        case let .parentSet(id, parent, _):
            lock.lock()
            table.pointee.setParent(id.rawValue, parent.rawValue)
            lock.unlock()
        case let .weightChanged(id, weight):
            lock.lock()
            table.pointee.setWeight(id.rawValue, weight)
            lock.unlock()
        case let .cancelRequested(id, source):
            lock.lock()
            table.pointee.cancelRequested(id.rawValue, source: source)
            lock.unlock()
        case let .dropped(ids):
            lock.lock()
            table.pointee.drop(ids)
            lock.unlock()
        case .output, .ref:
            return   // a command's output lines reach the span as progress info already
        }
    }

    func context(for id: Int) -> ServiceContext? {
        lock.withLock { table.pointee.context(for: id) }
    }

    func endAll() {
        let open = lock.withLock { table.pointee.removeAll() }
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

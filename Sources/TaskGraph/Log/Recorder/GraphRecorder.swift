import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Writes a graph's events to a replay log (docs/log-format.md): the header, a snapshot of what
/// exists, then every event with the log's own `seq` and `t` (seconds on the graph's clock
/// since recording started), periodic snapshots, and on `finish()` (or `cancel()`) a final
/// snapshot and an `end` line with the summary.
///
/// Lines are buffered and flushed at least every 100 ms, when the buffer passes 1 MiB, on
/// `flush()`, on `finish()` and at process exit (`atexit`), so a crash loses at most the
/// unflushed tail and never corrupts an earlier line.
///
/// Periodic snapshots: one is written when the events since the last one reach
/// `max(snapshotEvery, 4 × live nodes)` (`snapshotEvery` defaults to 5,000), so seeking
/// costs at most one snapshot plus that many events, and snapshots stay about a fifth of
/// the log. A snapshot over 1 MiB is split into parts.
///
/// The recorder observes the graph synchronously (`Graph.snapshotAndObserve`); encoding is
/// done by hand into a reused buffer, so recording costs no allocation per event. Writing
/// the file happens outside `lock` (the buffer is swapped for an empty one), so the graph,
/// which calls `record(_:)` under its own lock, never waits for the disk.
public final class GraphRecorder: GraphObservation, @unchecked Sendable {   // state behind `lock`, file behind `writeLock`
    /// The default minimum number of events between two snapshots.
    public static let defaultSnapshotEvery = 5000
    /// Buffered bytes that trigger a write before the 100 ms flush.
    static let flushBytes = 1 << 20

    /// Where the log goes.
    public let path: String

    private let lock = Lock()
    /// Held while writing; taken before `lock`, never inside it.
    private let writeLock = Lock()
    private let file: LogFile
    @exclusivity(unchecked) private var buffer = LogBuffer(capacity: GraphRecorder.flushBytes + (1 << 16))
    /// The buffer being written (behind `writeLock`), swapped with `buffer`.
    @exclusivity(unchecked) private var writing = LogBuffer(capacity: GraphRecorder.flushBytes + (1 << 16))
    @exclusivity(unchecked) private var model = LogModel()
    @exclusivity(unchecked) private var seq: UInt64 = 0
    @exclusivity(unchecked) private var eventsSinceSnapshot = 0
    private let snapshotEvery: Int
    private let startTime: Double
    @exclusivity(unchecked) private var lastT: Double = 0
    @exclusivity(unchecked) private var lastRootSettle: Double?
    @exclusivity(unchecked) private var finished = false
    private let clock: (any GraphClock)?
    private var observation: (any GraphObservation)?
    private var timer: (any DispatchSourceTimer)?

    /// Opens `path` (created or truncated) and writes the header; events come from
    /// `record(_:)`. Use `init(graph:path:...)` to record a graph.
    /// - Parameters:
    ///   - producer: the header's `producer` (default: this process's command line).
    ///   - scenario, seed: header fields, written when given.
    ///   - startTime: clock time that becomes `t = 0`.
    public init(path: String, producer: String? = nil, scenario: String? = nil, seed: UInt64? = nil,
                startTime: Double = 0, snapshotEvery: Int = GraphRecorder.defaultSnapshotEvery) throws {
        self.path = path
        self.file = try LogFile(path: path)
        self.startTime = startTime
        self.snapshotEvery = max(1, snapshotEvery)
        self.clock = nil
        buffer.header(created: iso8601Now(),
                      producer: producer ?? CommandLine.arguments.joined(separator: " "),
                      scenario: scenario, seed: seed)
        startFlushing()
    }

    /// Opens `path`, writes the header and a snapshot of what `graph` holds now, then
    /// records every event of `graph` until `finish()`/`cancel()`.
    public init(graph: Graph, path: String, producer: String? = nil, scenario: String? = nil,
                seed: UInt64? = nil, snapshotEvery: Int = GraphRecorder.defaultSnapshotEvery) throws {
        self.path = path
        self.file = try LogFile(path: path)
        self.clock = graph.clock
        self.startTime = graph.clock.now
        self.snapshotEvery = max(1, snapshotEvery)
        buffer.header(created: iso8601Now(),
                      producer: producer ?? CommandLine.arguments.joined(separator: " "),
                      scenario: scenario, seed: seed)
        // The graph holds the recorder (through the handler) until `finish()`: the observation
        // lives until cancelled, as `GraphObservation` promises. Our lock is held across
        // registration, so an event on another thread waits until the snapshot is written.
        lock.withLock {
            let (snapshot, observation) = graph.snapshotAndObserve { event in
                self.record(event)
            }
            self.observation = observation
            model = LogModel(snapshot)
            writeSnapshotLocked(t: 0)
        }
        startFlushing()
    }

    /// The first write error, if any (recording stops writing after one).
    public var writeError: RecordingError? { writeLock.withLock { file.failure } }

    /// Appends one event (its `sequence` is replaced by the log's own counter).
    public func record(_ event: GraphEvent) {
        let full = lock.withLock { () -> Bool in
            guard !finished else { return false }
            let t = event.time - startTime
            lastT = t
            seq += 1
            buffer.event(event.change, seq: seq, t: t)
            if case let .stateChanged(id, state, _, _) = event.change, state.isSettled,
               let n = model[id.rawValue], n.parent < 0 {
                lastRootSettle = t
            }
            model.apply(event.change)
            eventsSinceSnapshot += 1
            if eventsSinceSnapshot >= max(snapshotEvery, 4 * model.liveCount) {
                writeSnapshotLocked(t: t)
            }
            return buffer.count >= GraphRecorder.flushBytes
        }
        if full { flush() }
    }

    /// Records a key that changed something (`id`: the selected node), at the clock's time.
    public func recordKey(_ key: String, node: NodeID?) {
        let now = clock.map { $0.now - startTime }
        lock.withLock {
            guard !finished else { return }
            seq += 1
            buffer.key(key, id: node, seq: seq, t: max(now ?? lastT, lastT))
        }
    }

    /// Writes whatever is buffered. Only the swap of buffers happens under `lock`; the
    /// write itself holds `writeLock`, which keeps flushes in order.
    public func flush() {
        writeLock.withLock {
            lock.withLock { swap(&buffer, &writing) }
            guard !writing.isEmpty else { return }
            writing.withBytes { file.write($0) }
            writing.removeAll()
        }
    }

    /// Stops recording: a final snapshot, the `end` line, flush, close. Later calls and
    /// events are ignored.
    public func finish() {
        stop { t in
            writeSnapshotLocked(t: t)
            let allSettled = model.rootIDs.allSatisfy { model[$0]?.state.isSettled ?? true }
            let duration = allSettled ? (lastRootSettle ?? t) : t
            seq += 1
            buffer.end(model.summary(duration: duration), seq: seq, t: t)
        }
    }

    /// Same as `finish()`.
    public func cancel() { finish() }

    /// Stops recording without the final snapshot and `end`, as a killed session would
    /// leave the log (for tests and for abandoning a session).
    public func abandon() {
        stop { _ in }
    }

    /// Runs `last` (lock held, with the session time) once, then detaches from the graph,
    /// writes what is left and closes the file.
    private func stop(_ last: (Double) -> Void) {
        let observation: (any GraphObservation)? = lock.withLock {
            guard !finished else { return nil }
            last(max(clock.map { $0.now - startTime } ?? lastT, lastT))
            finished = true
            defer { self.observation = nil }
            return self.observation
        }
        observation?.cancel()
        closeFile()
        stopFlushing()
    }

    /// Writes what is left and closes the file (after `finished` is set: nothing follows).
    private func closeFile() {
        flush()
        writeLock.withLock { file.close() }
    }

    private func writeSnapshotLocked(t: Double) {
        seq = model.writeSnapshot(into: &buffer, seq: seq + 1, t: t) - 1
        eventsSinceSnapshot = 0
    }

    private func startFlushing() {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100),
                        leeway: .milliseconds(10))
        source.setEventHandler { [weak self] in self?.flush() }
        lock.withLock { timer = source }
        RecorderRegistry.shared.add(self)
        source.resume()
    }

    private func stopFlushing() {
        let t = lock.withLock { () -> (any DispatchSourceTimer)? in
            defer { timer = nil }
            return timer
        }
        t?.cancel()
        RecorderRegistry.shared.remove(self)
    }

    deinit {
        timer?.cancel()
        if !finished { flush() }
    }
}

/// Live recorders, flushed at process exit.
final class RecorderRegistry: @unchecked Sendable {   // state behind `lock`
    static let shared = RecorderRegistry()

    private let lock = Lock()
    private var recorders: [ObjectIdentifier: Weak] = [:]
    private var installed = false

    struct Weak { weak var recorder: GraphRecorder? }

    func add(_ r: GraphRecorder) {
        let install = lock.withLock { () -> Bool in
            recorders[ObjectIdentifier(r)] = Weak(recorder: r)
            defer { installed = true }
            return !installed
        }
        if install { atexit { RecorderRegistry.shared.flushAll() } }
    }

    func remove(_ r: GraphRecorder) {
        lock.withLock { _ = recorders.removeValue(forKey: ObjectIdentifier(r)) }
    }

    func flushAll() {
        let live = lock.withLock { recorders.values.compactMap(\.recorder) }
        for r in live { r.flush() }
    }
}

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
/// What it costs the program: the graph calls the recorder under its lock, and the recorder
/// only copies the event (a small value; its strings are retained, not copied) into a spool.
/// The recorder's own writer thread takes the spooled events in batches, in sequence order,
/// encodes them (by hand into a reused buffer) and writes the file. The log is the same,
/// byte for byte, as if each event were encoded when it happened.
///
/// If the writer falls far behind (the spool holds `maxBacklog` events, 16 MiB), the
/// thread delivering the next event waits for the writer to catch up; if the writer makes
/// no progress for `stallSeconds` (a disk that stopped answering), recording gives up
/// instead of holding the program any longer: later events are dropped, `writeError` says
/// so, and the log ends there as a killed session's would (a valid prefix without `end`).
/// The spool's chunks, once allocated, are reused until recording stops, so its memory is
/// at most about `maxBacklog` events' worth (4 chunks are mapped ahead from the start).
public final class GraphRecorder: GraphObservation, @unchecked Sendable { // writer state behind `lock`
    /// The default minimum number of events between two snapshots.
    public static let defaultSnapshotEvery = 5000
    /// Buffered bytes that trigger a write before the 100 ms flush.
    static let flushBytes = 1 << 20
    /// Events spooled per chunk.
    static let chunkEvents = 4096
    /// Events the spool holds before the program's threads wait for the writer.
    public static let maxBacklog = 64 * chunkEvents
    /// How long a program's thread waits for a writer that makes no progress (seconds).
    public static let stallSeconds = 1.0
    /// Empty chunks the writer keeps mapped for the program's threads (see `Spool`): enough
    /// for a burst of 16k events (W5's cancel is 20k) without a page fault on their side.
    static let preparedChunks = 4

    /// Where the log goes.
    public let path: String

    /// What the program's threads hand over: an event (packed in one cache line), or a key
    /// line (with its clock time; rare, so boxed).
    enum Entry {
        case item(PackedItem)
        case key(Key)
    }

    final class Key: @unchecked Sendable { // immutable
        let key: String
        let node: NodeID?
        let now: Double?
        init(_ key: String, _ node: NodeID?, _ now: Double?) {
            self.key = key
            self.node = node
            self.now = now
        }
    }

    /// Between the program's threads and the writer.
    private let spool = Spool<Entry>(
        chunkSize: GraphRecorder.chunkEvents,
        maxChunks: GraphRecorder.maxBacklog / GraphRecorder.chunkEvents,
        overflow: .wait(seconds: GraphRecorder.stallSeconds),
        prepared: GraphRecorder.preparedChunks)
    /// The writer's state: taken by the writer thread, `flush()` and `finish()`, never by the
    /// program's threads on an event.
    private let lock = Lock()
    /// Appends to `spool` made outside the graph's deliveries (`record`, `recordKey`) take it,
    /// and, when recording a graph, pause its deliveries (`appendOutside`): a spool's appends
    /// must not overlap.
    private let appendLock = Lock()
    /// The recorded graph's anchor (nil: no graph), to reach the graph without keeping it.
    private let anchor: GraphAnchor?
    private let file: LogFile
    @exclusivity(unchecked) private var buffer = LogBuffer(capacity: GraphRecorder.flushBytes + (1 << 16))
    @exclusivity(unchecked) private var model = RecorderModel()
    @exclusivity(unchecked) private var seq: UInt64 = 0
    @exclusivity(unchecked) private var eventsSinceSnapshot = 0
    private let snapshotEvery: Int
    /// The clock time that is `t = 0` in the log (a graph's clock when recording began).
    public let startTime: Double
    /// The header's `created`: when recording began (ISO 8601, UTC), which exported times
    /// count from.
    public let created = iso8601Now()
    @exclusivity(unchecked) private var lastT: Double = 0
    @exclusivity(unchecked) private var lastRootSettle: Double?
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var lastWrite = monotonicSeconds()
    @exclusivity(unchecked) private var stallError: RecordingError?
    /// The first failure, published under its own lock: a dashboard asks for it every
    /// second and must not wait behind a write to a slow disk (which holds `lock`).
    private let failureLock = Lock()
    @exclusivity(unchecked) private var failure: RecordingError?
    @exclusivity(unchecked) private var outputBound = OutputBound()
    private let clock: (any GraphClock)?
    @exclusivity(unchecked) private var observation: (any GraphObservation)?

    /// Opens `path` (created or truncated) and writes the header; events come from
    /// `record(_:)`. Use `init(graph:path:...)` to record a graph.
    /// - Parameters:
    ///   - path: the log file to write.
    ///   - producer: the header's `producer` (default: this process's command line).
    ///   - scenario: the header's `scenario`, written when given.
    ///   - seed: the header's `seed`, written when given.
    ///   - startTime: clock time that becomes `t = 0`.
    ///   - snapshotEvery: write a full snapshot after at least this many events (at least 1).
    public init(
        path: String, producer: String? = nil, scenario: String? = nil, seed: UInt64? = nil,
        startTime: Double = 0, snapshotEvery: Int = GraphRecorder.defaultSnapshotEvery
    ) throws {
        self.path = path
        self.file = try LogFile(path: path)
        self.startTime = startTime
        self.snapshotEvery = max(1, snapshotEvery)
        self.clock = nil
        self.anchor = nil
        buffer.header(
            created: created,
            producer: producer ?? CommandLine.arguments.joined(separator: " "),
            scenario: scenario, seed: seed)
        startWriter()
    }

    /// Opens `path`, writes the header and a snapshot of what `graph` holds now, then
    /// records every event of `graph` until `finish()`/`cancel()`.
    ///   - scenarioFile: the header's `file`: the absolute path of the scenario file the
    ///     session ran (taskview finds earlier runs of the same file by it).
    public init(
        graph: Graph, path: String, producer: String? = nil, scenario: String? = nil,
        seed: UInt64? = nil, scenarioFile: String? = nil,
        snapshotEvery: Int = GraphRecorder.defaultSnapshotEvery
    ) throws {
        self.path = path
        self.file = try LogFile(path: path)
        self.anchor = graph.anchor
        self.clock = graph.clock
        self.startTime = graph.clock.now
        self.snapshotEvery = max(1, snapshotEvery)
        buffer.nanosecondTimes = graph.clockIsMonotonic
        buffer.header(
            created: created,
            producer: producer ?? CommandLine.arguments.joined(separator: " "),
            scenario: scenario, seed: seed, file: scenarioFile)
        // The graph holds the recorder (through the handler) until `finish()`: the observation
        // lives until cancelled, as `GraphObservation` promises, even when the caller drops
        // it. Events spooled meanwhile are encoded after the snapshot (the writer needs `lock`).
        lock.withLock {
            // The sinks capture the spool only (the observation keeps `self` as its owner): a
            // closure capturing one object uses it as its context, and the recorder has a side
            // table (it is referenced weakly), so every retain of it takes the slow path.
            let spool = self.spool
            let (snapshot, observation) = graph.snapshotAndKeep(
                owner: self,
                { (event: consuming GraphEvent) in
                    _ = spool.append(.item(PackedItem(event)))
                },
                pair: { (first: consuming GraphEvent, second: consuming GraphEvent) in
                    spool.appendPair(first, second) { .item($0) }
                })
            self.observation = observation
            model = RecorderModel(snapshot, startTime: startTime)
            writeSnapshotLocked(t: 0)
        }
        startWriter()
    }

    /// The first write error, if any (recording stops writing after one), or why recording
    /// gave up (a writer stalled for `stallSeconds`).
    /// Never waits for the writer.
    public var writeError: RecordingError? { failureLock.withLock { failure } }

    /// Makes the first failure (a write, the close, a stall) visible to `writeError`.
    private func publishFailureLocked() {
        lock.assertHeld()
        guard let error = file.failure ?? stallError else { return }
        failureLock.withLock { if failure == nil { failure = error } }
    }

    /// Output recorded per node, in bytes (each line's text and its newline); nil (the
    /// default): every line. Past it a node's `output` lines are left out, and one `output`
    /// line on `stderr` says how much when the node settles or recording ends:
    /// `[136 MiB of output left out (--output-limit 64 MiB)]`. Set it before the output comes.
    public var outputLimit: Int? {
        get { lock.withLock { outputBound.limit } }
        set { lock.withLock { outputBound.limit = newValue.map { max(0, $0) } } }
    }

    /// Appends one event (its `sequence` is replaced by the log's own counter). Only copies
    /// it: the writer thread encodes it.
    public func record(_ event: GraphEvent) {
        appendOutside(.item(PackedItem(event)))
    }

    /// Records a key that changed something (`id`: the selected node), at the clock's time.
    public func recordKey(_ key: String, node: NodeID?) {
        let entry = Entry.key(Key(key, node, clock.map { $0.now - startTime }))
        appendOutside(entry)
    }

    private func appendOutside(_ entry: Entry) {
        appendLock.withLock {
            var done = false
            anchor?.withGraph { graph in
                graph.withDeliveriesPaused { _ = spool.append(entry) }
                done = true
            }
            if !done { _ = spool.append(entry) } // no graph (any more): no deliveries either
        }
    }

    /// Encodes every event handed over so far and writes what is buffered (so a reader of
    /// the file sees every event delivered before the call).
    public func flush() {
        lock.withLock {
            drainLocked()
            writeLocked()
        }
    }

    /// Stops recording: the events handed over so far, a final snapshot, the `end` line,
    /// flush, close. Later calls and events are ignored.
    public func finish() {
        stop { t in
            for (node, bytes) in outputBound.takeAllLeftOut() { leftOutLocked(node, bytes, t: t) }
            writeSnapshotLocked(t: t)
            seq += 1
            buffer.end(model.endSummary(t: t, lastRootSettle: lastRootSettle), seq: seq, t: t)
        }
    }

    /// Same as `finish()`.
    public func cancel() { finish() }

    /// Stops recording without the final snapshot and `end`, as a killed session would
    /// leave the log (for tests and for abandoning a session).
    public func abandon() {
        stop { _ in }
    }

    /// Closes the spool (later events are dropped), detaches from the graph, encodes what
    /// was handed over, runs `last` once (lock held, with the session time), writes what is
    /// left and closes the file.
    private func stop(_ last: (Double) -> Void) {
        spool.close()
        let now = clock.map { $0.now - startTime }
        let observation: (any GraphObservation)? = lock.withLock {
            guard !finished else { return nil }
            drainLocked()
            last(max(now ?? lastT, lastT))
            finished = true
            writeLocked()
            file.close()
            publishFailureLocked()
            defer { self.observation = nil }
            return self.observation
        }
        observation?.cancel()
        RecorderRegistry.shared.remove(self)
    }

    /// Encodes every spooled entry, in order.
    private func drainLocked() {
        lock.assertHeld()
        guard !finished else { return }
        spool.drain { (entry: consuming Entry) in
            switch consume entry {
            case .item(let item): item.forEachEvent { encodeLocked($0) }
            case .key(let k):
                seq += 1
                buffer.key(k.key, id: k.node, seq: seq, t: max(k.now ?? lastT, lastT))
            }
        }
        if spool.failed, stallError == nil {
            stallError = RecordingError(
                path: path,
                message: "recording stopped: the writer made no progress for \(GraphRecorder.stallSeconds) s")
            publishFailureLocked()
        }
    }

    private func encodeLocked(_ event: GraphEvent) {
        lock.assertHeld()
        // Times never go backwards in a log, whatever the events' sources: an attach session
        // records several programs' streams (and its own rows) on one clock, each stream
        // translated with its own delay.
        let own = event.time - startTime
        let t = max(own, lastT)
        lastT = t
        if outputBound.limit != nil {
            switch event.change {
            case .output(let id, _, let text):
                if !outputBound.admit(node: id.rawValue, bytes: text.utf8.count + 1) { return }
            case .stateChanged(let id, let state, _, _) where state.isSettled:
                if let bytes = outputBound.takeLeftOut(node: id.rawValue) { leftOutLocked(id.rawValue, bytes, t: t) }
            default: break
            }
        }
        seq += 1
        if own < t, case .stateChanged(let id, .executing, _, _) = event.change {
            // Begun before this line can say (before the log, or on a stream's earlier
            // clock): the line keeps the node's own start, and so do later snapshots.
            buffer.executing(id, seq: seq, t: t, started: own)
            model.apply(event.change)
            model.noteStart(id.rawValue, at: own)
            eventsSinceSnapshot += 1
            return
        }
        if own < t, case .stateChanged(_, let state, _, _) = event.change, state.isSettled {
            // An outcome learned late (an attach session's resync): the line keeps when the
            // node really settled, so its duration stays the program's own.
            buffer.settled(event.change, seq: seq, t: t, ended: own)
        } else {
            buffer.event(event.change, seq: seq, t: t)
        }
        if case .stateChanged(let id, let state, _, _) = event.change, state.isSettled,
            model.parentOf(id.rawValue) < 0, model.contains(id.rawValue)
        {
            lastRootSettle = t
        }
        model.apply(event.change)
        eventsSinceSnapshot += 1
        if eventsSinceSnapshot >= max(snapshotEvery, 4 * model.liveCount) {
            writeSnapshotLocked(t: t)
        }
        if buffer.count >= GraphRecorder.flushBytes { writeLocked() }
    }

    /// The one `output` line that says how much of `node`'s output was left out.
    private func leftOutLocked(_ node: Int, _ bytes: Int, t: Double) {
        lock.assertHeld()
        seq += 1
        let text = outputBound.note(leftOut: bytes)
        buffer.event(.output(id: NodeID(node), stream: .stderr, text: text), seq: seq, t: t)
        eventsSinceSnapshot += 1
    }

    /// Writes the buffer to the file.
    private func writeLocked() {
        lock.assertHeld()
        lastWrite = monotonicSeconds()
        guard !buffer.isEmpty else { return }
        buffer.withBytes { file.write($0) }
        buffer.removeAll()
        publishFailureLocked()
    }

    private func writeSnapshotLocked(t: Double) {
        lock.assertHeld()
        model.assertInvariants()
        seq = model.writeSnapshot(into: &buffer, seq: seq + 1, t: t) - 1
        eventsSinceSnapshot = 0
    }

    /// The writer thread: encodes whenever a chunk of events is ready or 50 ms passed, and
    /// writes what is buffered when 50 ms passed since the last write (so every line is in
    /// the file within about 100 ms). It holds the recorder weakly and ends with it (or
    /// at `finish()`).
    private func startWriter() {
        RecorderRegistry.shared.add(self)
        let spool = self.spool
        let thread = WriterThread { [weak self] in
            spool.waitForWork(milliseconds: 50)
            guard let self else { return false }
            return self.writerStep()
        }
        thread.start()
    }

    /// One round of the writer; false when the recorder has finished.
    private func writerStep() -> Bool {
        lock.withLock {
            guard !finished else { return false }
            drainLocked()
            if monotonicSeconds() - lastWrite >= 0.05 { writeLocked() }
            return true
        }
    }

    deinit {
        spool.close()
        // Nobody else holds a reference now; the lock is taken so the `…Locked` functions'
        // debug checks hold (a recorder dropped without `finish()` crashed them).
        lock.withLock {
            if !finished {
                drainLocked()
                writeLocked()
            }
        }
    }
}

/// Live recorders, flushed at process exit.
final class RecorderRegistry: @unchecked Sendable { // state behind `lock`
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

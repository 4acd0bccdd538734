import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves a graph to viewers on a Unix socket; made by `Graph.serve(...)`.
///
/// Each viewer gets the replay-log format live (docs/log-format.md, "Served streams"): the
/// header (plus `pid` and `name`), a snapshot of the graph, then every event, each line with
/// the connection's own `seq` and `t` (graph-clock seconds since the server started). Viewers may send
/// `{"cmd":"cancel","id":N}` (when `allowCancel`); anything else gets an error line.
///
/// Nothing here ever blocks the program:
/// - While no viewer is connected, no observer is attached: serving costs nothing per event.
/// - With viewers, the graph's observer only copies each event into a spool (no encoding, no
///   allocation, no lock of ours); one server thread (poll) encodes each event once, copies
///   the line into each connection's buffer and writes the buffers with non-blocking writes.
///   If that thread falls more than `spoolEvents` events behind, the spool drops events
///   and every viewer gets `resync` and a fresh snapshot. Each connection buffers at most `bufferBytes` (8 MiB) of events; a viewer that
///   falls further behind loses those events and, once it reads again, gets
///   `{"ev":"resync","skipped":N}` and a fresh snapshot.
///
/// Security: the socket's directory is private (0700, see `Graph.serve`), the socket is
/// 0600, the peer's uid is checked on every connection (other users are closed at once), and
/// at most `maxViewers` viewers are served at a time.
///
/// `stop()` (or `cancel()`, or normal process exit) sends each viewer a final snapshot and
/// `end`, closes the connections and removes the socket file.
public final class GraphServer: GraphObservation, @unchecked Sendable { // state behind `lock`, see below
    /// Viewers served at once; more are refused with an error line.
    public static let maxViewers = 16
    /// Event bytes buffered per connection before it is resynced.
    public static let bufferBytes = 8 << 20
    /// Longest line a viewer may send; a longer one closes its connection.
    public static let maxCommandBytes = 64 << 10
    /// Events spooled per chunk, and at most (the server thread then resyncs every viewer).
    static let spoolChunk = 4096
    static let spoolEvents = 64 * spoolChunk
    /// Events encoded at most before the server thread writes to its viewers again. Encoding
    /// a whole backlog first filled a fast viewer's buffer (8 MiB) and resynced it, though it
    /// read as fast as the lines came (attach-bench: 2-3 resyncs a round of W1).
    static let pumpSlice = 16_384
    /// How long the server thread holds back the next slice for a viewer without room.
    static let pumpWaitSeconds = 0.002
    /// How long the server thread lets events gather after being woken (latency to viewers).
    static let batchMicroseconds: UInt32 = 2000
    /// How often the program's own CPU and memory go to viewers.
    static let programUsageSeconds = 1.0
    /// How long `stop()` lets viewers take the final snapshot and `end` (seconds).
    static let finalFlushSeconds = 1.0
    /// The error line a viewer of another user gets before its connection is closed.
    package static let otherUserRefusal = "refused: the program runs as another user"

    /// The socket's path.
    public let path: String
    /// What viewers show for this program.
    public let name: String
    /// Whether viewers may cancel tasks.
    public let allowCancel: Bool

    let graph: Graph
    let startTime: Double
    let created: String
    let listenFD: Int32
    let inode: ino_t
    let wakeRead: Int32
    let wakeWrite: Int32
    /// Signalled (and re-signalled by each waiter) when the server thread has finished.
    let finished = DispatchSemaphore(value: 0)

    let lock = Lock()
    // Guarded by `lock`:
    @exclusivity(unchecked) var connections: [ViewerConnection] = [] {
        didSet { connectionRefs = connections.map { Unmanaged.passUnretained($0) } }
    }
    /// `connections` without their references counted (`connections` holds them), for the
    /// loops run on every event: taking each connection out of `connections` retained and
    /// released it, a fifth of the server thread's time with one viewer.
    @exclusivity(unchecked) private(set) var connectionRefs: [Unmanaged<ViewerConnection>] = []
    /// What viewers have been sent, kept while observing (for snapshots and the summary): the
    /// recorder's compact model (a few bytes a node), which writes the same snapshots.
    @exclusivity(unchecked) var model = RecorderModel(keepingTimes: true)
    @exclusivity(unchecked) var observation: (any GraphObservation)?
    /// The latest `t` written to any viewer (lines never go back in time).
    @exclusivity(unchecked) var lastT = 0.0
    @exclusivity(unchecked) var lastRootSettle: Double?
    /// One event encoded once with seq 0, then copied to each connection with its own seq.
    @exclusivity(unchecked) var scratch = LogBuffer(capacity: 1 << 14)
    /// Events from the graph's observer, waiting for the server thread to encode them.
    /// Up to 8 emptied chunks are kept (4 mapped ahead), so a burst costs the program no
    /// page faults while an idle server holds a few MiB at most beyond its backlog.
    /// One item per event (never a cancel pair: counts of dropped items are counts of events).
    let spool = Spool<SpooledEvent>(
        chunkSize: GraphServer.spoolChunk,
        maxChunks: GraphServer.spoolEvents / GraphServer.spoolChunk, overflow: .drop,
        prepared: 4, keptSpares: 8)
    /// Events up to this sequence are in the model's snapshot already.
    @exclusivity(unchecked) var joinSequence: UInt64 = 0
    /// The graph's sequence of the last event the model holds (an event encoded or counted,
    /// or the latest snapshot): what a re-attach compares with to count the events missed
    /// while the server let go of the graph (see `letGoIfNobodyReadsLocked`).
    @exclusivity(unchecked) var lastSequence: UInt64 = 0
    @exclusivity(unchecked) var stopping = false
    /// The server thread (set when it starts), so `stop()` from a cancel handler that runs
    /// on it (a viewer's cancel) does not wait for itself.
    @exclusivity(unchecked) var serverThread: pthread_t?

    init(graph: Graph, path: String?, name: String?, allowCancel: Bool) throws {
        self.graph = graph
        self.name = name ?? GraphServer.processName()
        self.allowCancel = allowCancel
        let bound = try ServerRegistry.shared.listen(at: path)
        self.path = bound.path
        self.listenFD = bound.fd
        self.inode = bound.inode
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            let reason = SocketPath.lastError()
            close(bound.fd)
            unlink(bound.path)
            ServerRegistry.shared.release(path: bound.path)
            throw ServeError(path: bound.path, reason: "pipe: \(reason)")
        }
        for fd in fds { SocketPath.configure(fd, nonBlocking: true) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        startTime = graph.clock.now
        scratch.nanosecondTimes = graph.clockIsMonotonic
        created = iso8601Now()
        ServerRegistry.shared.add(self)
        startThread()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    static func processName() -> String {
        let arg0 = CommandLine.arguments.first ?? "program"
        return arg0.split(separator: "/").last.map(String.init) ?? arg0
    }

    /// Graph-clock seconds since the server started.
    var now: Double { graph.clock.now - startTime }

    /// Sends each viewer a final snapshot and `end`, closes every connection (waiting at
    /// most a second for slow viewers) and removes the socket file. Later calls do nothing.
    /// Must not be called from a graph observer.
    public func stop() {
        let observation = lock.withLock { () -> (any GraphObservation)? in
            guard !stopping else { return nil }
            stopping = true
            if self.observation != nil || !connections.isEmpty {
                // Let go of the graph while every viewer was stalled: the final snapshot is
                // taken now (and counts what they missed).
                if self.observation != nil { pumpLocked() } else { resnapshotLocked(observe: false) }
                let t = max(now, lastT)
                lastT = t
                let summary = model.endSummary(t: t, lastRootSettle: lastRootSettle)
                for c in connections where !c.closeAfterSending { // that one ends with its error line
                    if c.overflowed { // the final snapshot below is its fresh snapshot
                        c.seq += 1
                        c.pending.resync(skipped: c.skipped, seq: c.seq, t: t)
                        c.overflowed = false
                    }
                    c.seq = model.writeSnapshot(into: &c.pending, seq: c.seq + 1, t: t) - 1
                    c.seq += 1
                    c.pending.end(summary, seq: c.seq, t: t)
                }
            }
            defer { self.observation = nil }
            return self.observation
        }
        observation?.cancel()
        poke()
        let onServerThread = lock.withLock { serverThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onServerThread {
            finished.wait()
            finished.signal()
        }
        ServerRegistry.shared.remove(self)
    }

    /// Same as `stop()`.
    public func cancel() { stop() }

    /// Wakes the server thread.
    func poke() { GraphServer.poke(wakeWrite) }

    /// Wakes the server thread whose wake pipe is `fd`. Not inlined: its byte on the stack
    /// would give the observer's sink, which calls it, a stack protector on every event.
    @inline(never)
    static func poke(_ fd: Int32) {
        var b: UInt8 = 1
        _ = write(fd, &b, 1)
    }

    // MARK: The server thread's side (lock held)

    /// Before the server thread sleeps: whether nothing waits in the spool, in which case the
    /// next event's append wakes it (the observer's sink, in `resnapshotLocked`). With
    /// deliveries paused, so an event cannot slip in between the check and the mark.
    func markSpoolIdleLocked() -> Bool {
        lock.assertHeld()
        guard observation != nil else { return true }
        return graph.withDeliveriesPaused { spool.markIdleIfEmpty() }
    }

    /// Whether every viewer that is not overflowed has room for another slice of events
    /// (a quarter of its buffer free).
    func hasRoomLocked() -> Bool {
        lock.assertHeld()
        return connections.allSatisfy {
            $0.overflowed || $0.eventBytes + $0.inFlightEventBytes < GraphServer.bufferBytes / 4
        }
    }

    /// Encodes spooled events once each, at most `limit`, and appends them to every
    /// connection's buffer; returns whether it stopped at the limit (more may wait). After
    /// a spool overflow (this thread fell more than `spoolEvents` behind), the model restarts
    /// from a fresh snapshot of the graph and every viewer is resynced.
    @discardableResult
    func pumpLocked(limit: Int = .max) -> Bool {
        lock.assertHeld()
        guard observation != nil else {
            spool.discard()
            return false
        }
        if spool.isOverflowed {
            let lost = spool.discard() + spool.resume()
            let snapshot = graph.snapshot()
            model = RecorderModel(snapshot, startTime: startTime, keepingTimes: true)
            joinSequence = snapshot.sequence
            lastSequence = snapshot.sequence
            for c in connections where !c.overflowed {
                c.skipped = c.pendingEvents + lost
                c.overflowed = true
                c.pending.removeAll()
                c.seq = c.handedSeq
                c.eventBytes = 0
                c.pendingEvents = 0
            }
            for c in connections where c.overflowed && c.skipped < lost { c.skipped = lost }
        }
        let taken = spool.drain(limit: limit) { (entry: consuming SpooledEvent) in
            guard case .item(let item) = consume entry else { return } // no notes here
            item.forEachEvent { event in
                guard event.sequence > joinSequence else { return }
                encodeLocked(event)
                lastSequence = event.sequence
            }
        }
        return taken == limit
    }

    /// When every viewer is stalled (overflowed, with bytes it has not taken), nobody reads
    /// events and each gets a fresh snapshot when it reads again: the server lets go of the
    /// graph, so a stopped viewer costs the program what no viewer costs. Returns the
    /// observation to cancel (outside the lock). Server thread, after `pumpLocked`.
    func letGoIfNobodyReadsLocked() -> (any GraphObservation)? {
        lock.assertHeld()
        guard observation != nil, !stopping, !connections.isEmpty,
            connections.allSatisfy({ $0.overflowed && $0.hasUnsent })
        else { return nil }
        defer { observation = nil }
        return observation
    }

    /// A fresh snapshot of the graph as the model (observing again when `observe`). Events
    /// since the model's last one, which nobody received, count as skipped for every
    /// overflowed viewer (no other viewer exists while the server is not observing).
    func resnapshotLocked(observe: Bool) {
        lock.assertHeld()
        let snapshot: GraphSnapshot
        if observe {
            spool.discard()
            _ = spool.resume()
            // The sinks capture the spool and the wake pipe, not `self` (the observation keeps
            // the server as its owner): reading `self.spool` per event missed in the cache,
            // the line it shares with fields this server thread writes per event.
            let spool = self.spool
            let wake = wakeWrite
            let deliver = { @Sendable (event: consuming GraphEvent) in
                if spool.append(.item(PackedItem(event))) == .queuedFirst { GraphServer.poke(wake) }
            }
            let (snap, observation) = graph.snapshotAndKeep(
                owner: self, deliver,
                pair: {
                    (first: consuming GraphEvent, second: consuming GraphEvent) in
                    deliver(first) // one item per event: dropped items count events
                    deliver(second)
                })
            self.observation = observation
            snapshot = snap
        } else {
            snapshot = graph.snapshot()
        }
        if snapshot.sequence > lastSequence {
            let missed = Int(clamping: snapshot.sequence - lastSequence)
            for c in connections where c.overflowed { c.skipped += missed }
        }
        model = RecorderModel(snapshot, startTime: startTime, keepingTimes: true)
        joinSequence = snapshot.sequence
        lastSequence = snapshot.sequence
    }

    private func encodeLocked(_ event: GraphEvent) {
        lock.assertHeld()
        let t = max(event.time - startTime, lastT)
        lastT = t
        if case .stateChanged(let id, let state, _, _) = event.change, state.isSettled,
            model.parentOf(id.rawValue) < 0, model.contains(id.rawValue)
        {
            lastRootSettle = t
        }
        model.apply(event.change, time: t) // with times: for the snapshots of later viewers
        if !connectionRefs.contains(where: { $0._withUnsafeGuaranteedRef { !$0.overflowed } }) {
            // Nobody can take it (stalled viewers): count it, skip the encoding.
            for c in connections { c.skipped += 1 }
        } else {
            scratch.removeAll()
            scratch.event(event.change, seq: 0, t: t)
            // `{"seq":0` is 8 bytes; each connection writes its own seq before the rest.
            // `scratch` does not change until the loop ends, so its bytes stay where they are.
            let rest = scratch.unsafeBytes(from: 8)
            for k in connectionRefs.indices {
                connectionRefs[k]._withUnsafeGuaranteedRef { append(rest, to: $0) }
            }
        }
    }

    @inline(__always)
    private func append(_ rest: UnsafeRawBufferPointer, to c: ViewerConnection) {
        if c.overflowed {
            c.skipped += 1
            return
        }
        if c.eventBytes + c.inFlightEventBytes + rest.count + 28 > GraphServer.bufferBytes {
            // Drop what the viewer has not been handed yet; the seqs continue from the
            // last line it was handed, so its stream has no gap.
            c.skipped = c.pendingEvents + 1
            c.overflowed = true
            c.pending.removeAll()
            c.seq = c.handedSeq
            c.eventBytes = 0
            c.pendingEvents = 0
            return
        }
        c.seq += 1
        let before = c.pending.count
        c.pending.raw("{\"seq\":")
        c.pending.uint(c.seq)
        c.pending.appendBytes(rest)
        c.eventBytes += c.pending.count - before
        c.pendingEvents += 1
    }

    /// The `resync` line and a fresh snapshot for an overflowed connection (lock held).
    func resyncLocked(_ c: ViewerConnection) {
        lock.assertHeld()
        let t = max(now, lastT)
        lastT = t
        c.seq += 1
        c.pending.resync(skipped: c.skipped, seq: c.seq, t: t)
        c.seq = model.writeSnapshot(into: &c.pending, seq: c.seq + 1, t: t) - 1
        c.overflowed = false
        c.skipped = 0
    }
}

extension LogBuffer {
    /// The header of a served stream: the replay-log header plus `pid` and `name`.
    mutating func serverHeader(created: String, producer: String, pid: Int, name: String) {
        raw("{\"format\":\"taskgraph-log\",\"version\":1")
        nextKey("created")
        string(created)
        nextKey("producer")
        string(producer)
        nextKey("pid")
        int(pid)
        nextKey("name")
        string(name)
        raw("}\n")
    }

    /// `{"seq":N,"t":T,"ev":"resync","skipped":K}`.
    mutating func resync(skipped: Int, seq: UInt64, t: Double) {
        lineStart(seq: seq, t: t, ev: "resync")
        nextKey("skipped")
        int(skipped)
        lineEnd()
    }

    /// `{"seq":N,"t":T,"ev":"usage","program":true,"cpu":S,"rss":B}`: the program's own cost.
    mutating func programUsage(_ usage: NodeUsage, seq: UInt64, t: Double) {
        lineStart(seq: seq, t: t, ev: "usage")
        raw(",\"program\":true")
        usageFields(usage)
        lineEnd()
    }

    /// An error line within a stream (`seq` and `t` keep the stream a valid log).
    mutating func error(_ message: String, seq: UInt64, t: Double) {
        lineStart(seq: seq, t: t, ev: "error")
        nextKey("message")
        string(message)
        lineEnd()
    }

    /// `{"ev":"error","message":"..."}` for a connection refused before its stream starts.
    mutating func refusal(_ message: String) {
        raw("{\"ev\":\"error\"")
        nextKey("message")
        string(message)
        raw("}\n")
    }
}

import Synchronization
import TaskGraph
import TaskGraphProcess
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Streams a running graph's spans to an OTLP/HTTP collector: each node's span when it
/// settles, batched at most `interval` seconds, sent from a thread of its own so a collector
/// that is down, slow or refusing costs the run nothing. Batches wait in a bounded buffer
/// (`bufferLimit` bytes), retried with exponential backoff; beyond the buffer the oldest are
/// dropped and counted (`finish` says how many spans never arrived).
package final class OTLPStream: Sendable {
    /// Bytes of encoded spans kept for a collector that does not take them.
    package static let bufferLimit = 4 << 20
    /// The longest a settled span waits before it is sent.
    static let interval = 1.0
    /// Most spans in one request.
    static let batchSpans = 1024

    private struct Batch {
        var body: [UInt8]
        var spans: Int
    }

    /// The sender's state (`spans` and `inbox` have their own locks).
    private struct State {
        var queue: [Batch] = []
        var queuedBytes = 0
        var dropped = 0
        var lastError: String?
        /// Why the newest send failed, until one is delivered again.
        var failing: String?
        var finishing = false
        var done = false
        /// Until `finish`.
        var observation: (any GraphObservation)?
    }

    package let config: OTLPConfig
    private let state = Mutex(State())
    /// Events not folded yet: the run's whole part of the work is appending here.
    private let inbox = Mutex<[GraphEvent]>([])
    /// The folded spans; taken before `inbox` when both are needed.
    private let spans: Mutex<OTLPLiveSpans>
    private let resource: [(key: String, value: OTLPValue)]

    /// Starts streaming: `graph`'s spans from now on (its nodes so far and every later
    /// event), or, without a graph, the events given to `record(_:)` (an attach session's).
    /// - Parameters:
    ///   - header: the run's log header (the ids are the export's of that log).
    ///   - origin: the clock's time of the log's `t = 0`.
    package init(graph: Graph?, header: LogHeader, origin: Double, config: OTLPConfig) {
        self.config = config
        var resource: [(key: String, value: OTLPValue)] = [("service.name", .string(config.serviceName))]
        if let producer = header.producer { resource.append(("taskgraph.producer", .string(producer))) }
        for a in config.resourceAttributes { resource.append((a.key, .string(a.value))) }
        self.resource = resource
        let live = OTLPLiveSpans(header: header, origin: origin) { [weak graph] id in
            guard let graph, let info = CommandRegistry.shared.info(graph: graph, node: id) else { return nil }
            return OTLPProcessInfo(commandLine: info.commandLine, pid: info.startedPID)
        }
        spans = Mutex(live)
        if let graph {
            let (snapshot, observation) = graph.snapshotAndObserve { [self] event in self.record(event) }
            spans.withLock { $0.load(snapshot) }
            state.withLock { $0.observation = observation }
        }
        let body = StreamThreadBody { [self] in self.loop() }
        var t = pthread_t()
        let box = Unmanaged.passRetained(body)
        if pthread_create(
            &t, nil,
            { raw in
                Unmanaged<StreamThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box.toOpaque()) == 0
        {
            pthread_detach(t)
        } else {
            box.release()
            state.withLock { $0.lastError = "cannot start the sender thread" }
        }
    }

    /// One event of the streamed graph: only kept here, folded on the sender's thread.
    package func record(_ event: GraphEvent) {
        inbox.withLock { $0.append(event) }
    }

    /// `body` on the spans with every event so far folded in.
    private func folded<R: Sendable>(_ body: (inout OTLPLiveSpans) -> R) -> R {
        spans.withLock { live in
            let events = inbox.withLock { pending in
                var taken: [GraphEvent] = []
                swap(&taken, &pending)
                return taken
            }
            for e in events { live.apply(e) }
            return body(&live)
        }
    }

    /// W3C `traceparent` of node `id`'s span (for the command that node runs).
    package func traceparent(_ id: NodeID) -> String {
        folded { $0.traceparent(id) }
    }

    /// What `finish` found: spans never delivered and the last reason.
    package struct Result: Sendable, Equatable {
        package var undelivered: Int
        package var reason: String?
    }

    /// Ends the stream: the spans left (open ones end at the last event) are sent for at
    /// most `min(timeout, 2 s)`; then whatever is not delivered is counted.
    package func finish() -> Result {
        let deadline = HTTPPost.monotonicNow() + min(config.timeout, 2)
        state.withLock { s in
            s.observation?.cancel()
            s.observation = nil
            s.finishing = true
        }
        while HTTPPost.monotonicNow() < deadline {
            if state.withLock({ $0.done }) { break }
            sleepBriefly()
        }
        let (finished, lost, reason) = state.withLock { s in
            let finished = s.done
            s.done = true // the sender stops at its next look
            return (finished, s.dropped + s.queue.reduce(0) { $0 + $1.spans }, s.lastError)
        }
        // A sender stuck on a silent collector left spans unbuilt: they count too.
        let unsent = folded { $0.takeSettled().count + $0.takeOpen().count }
        return Result(undelivered: lost + unsent, reason: reason ?? (finished ? nil : "no answer in time"))
    }

    /// What the footer says while the run goes on when the collector is in trouble (spans
    /// dropped, or sends failing and retried), else nil.
    package func trouble() -> String? {
        let (dropped, failing, reason) = state.withLock { ($0.dropped, $0.failing, $0.lastError) }
        if dropped > 0 {
            let what = dropped == 1 ? "1 span" : "\(dropped) spans"
            return "\(what) not delivered to \(config.url)" + (reason.map { ": \($0)" } ?? "") + " (the run goes on)"
        }
        if let failing { return "Cannot send spans to \(config.url): \(failing) (retrying; the run goes on)" }
        return nil
    }

    /// The line `finish` prints when spans were lost: `12 spans not delivered to URL: reason`.
    package func notice(_ r: Result) -> String? {
        guard r.undelivered > 0 else { return nil }
        let what = r.undelivered == 1 ? "1 span" : "\(r.undelivered) spans"
        return "\(what) not delivered to \(config.url)" + (r.reason.map { ": \($0)" } ?? "")
    }

    /// Takes the settled spans (all of them when finishing) into encoded batches.
    private func collect() {
        let finishing = state.withLock { $0.finishing }
        let spans = folded { $0.takeSettled() + (finishing ? $0.takeOpen() : []) }
        var at = 0
        while at < spans.count {
            let part = Array(spans[at..<min(spans.count, at + Self.batchSpans)])
            at += part.count
            let body: [UInt8]
            switch config.wire {
            case .protobuf: body = OTLPProtobuf.request(resource: resource, spans: part)
            case .json:
                var out = JSONWriter(capacity: part.count * 400 + 256)
                OTLPTrace.json(&out, resource: resource, spans: part)
                body = out.withBytes { Array($0) }
            }
            state.withLock { s in
                s.queue.append(Batch(body: body, spans: part.count))
                s.queuedBytes += body.count
                while s.queuedBytes > Self.bufferLimit, s.queue.count > 1 {
                    let old = s.queue.removeFirst()
                    s.queuedBytes -= old.body.count
                    s.dropped += old.spans
                    s.lastError = s.lastError ?? "buffer full"
                }
            }
        }
    }

    private func loop() {
        var nextCollect = 0.0
        var retryAt = 0.0
        var backoff = 0.5
        while true {
            let now = HTTPPost.monotonicNow()
            let (finishing, done) = state.withLock { ($0.finishing, $0.done) }
            if done { return }
            if finishing || now >= nextCollect {
                collect()
                nextCollect = now + Self.interval
            }
            let next = state.withLock { $0.queue.first }
            // At the end one more try at once, whatever the backoff; a failure then ends it.
            if let batch = next, now >= retryAt || finishing {
                let outcome = HTTPPost.send(
                    host: config.host, port: config.port, path: config.path, headers: config.headers,
                    contentType: config.wire == .json ? "application/json" : "application/x-protobuf",
                    body: batch.body, timeout: config.timeout)
                state.withLock { s in
                    switch outcome {
                    case .delivered, .refused:
                        s.failing = nil
                        if case .refused(let why) = outcome {
                            s.dropped += batch.spans
                            s.lastError = why
                        }
                        if !s.queue.isEmpty {
                            s.queuedBytes -= s.queue[0].body.count
                            s.queue.removeFirst()
                        }
                    case .failed(let why):
                        s.lastError = why
                        s.failing = why
                    }
                }
                if case .failed = outcome {
                    if finishing {
                        state.withLock { $0.done = true }
                        return
                    }
                    retryAt = HTTPPost.monotonicNow() + backoff
                    backoff = min(backoff * 2, 30)
                } else {
                    backoff = 0.5
                }
                continue
            }
            if finishing && next == nil {
                state.withLock { $0.done = true }
                return
            }
            sleepBriefly()
        }
    }
}

/// A closure carried through `pthread_create`'s context pointer.
private final class StreamThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

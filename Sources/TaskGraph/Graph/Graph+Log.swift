/// Log records filed under nodes: `Graph.log`, and the path `GraphLogHandler` (module
/// `TaskGraphLogging`) takes from a swift-log call to the node current where it was made.
extension Graph {
    /// Records at most this many log records a second while the graph is observed (a
    /// recorder, a viewer, a tracer); beyond it records are dropped and counted, and the next
    /// record carries the count (`NodeLogRecord.droppedBefore`), so a program that logs faster
    /// than its recorder writes never waits for it.
    public static let logBudgetPerSecond = 10_000

    /// Records a log record for node `id` as a `log` event: `level` as swift-log names it
    /// (`trace` … `critical`), `message` cut to 64 KiB (`NodeLogRecord.cutMarker` marks the
    /// cut), at most 32 metadata entries with keys and values cut to 4 KiB. Costs a stripe's
    /// lock and nothing more while nobody observes the graph. Beyond
    /// `logBudgetPerSecond` records are dropped and counted. Unknown or dropped nodes are
    /// ignored.
    public func log(_ id: NodeID, level: String, message: String, metadata: [String: String] = [:]) {
        let raw = id.rawValue
        guard raw >= 0 else { return }
        // As `reportOutput`: one stripe's lock at a time, then all of them when the node may
        // have moved between two stripes meanwhile.
        for s in stripes {
            s.lock.lock()
            if s.slot(of: raw) != nil {
                emitLog(s, id, level: level, message: message, metadata: metadata)
                s.lock.unlock()
                return
            }
            s.lock.unlock()
        }
        withAllStripes {
            guard let (s, _) = locateLocked(raw) else { return }
            emitLog(s, id, level: level, message: message, metadata: metadata)
        }
    }

    /// One record for the node of a scope, a task body or a span (stripe `s` locked): built
    /// only when somebody observes and the budget admits it.
    func emitLog(
        _ s: Stripe, _ id: NodeID, level: String, message: @autoclosure () -> String,
        metadata: @autoclosure () -> [String: String]
    ) {
        guard observed else {
            s.sequence &+= 1
            return
        }
        guard let dropped = logBudget.admit(now: clockIsMonotonic ? monotonicSeconds() : clock.now) else { return }
        emitObserved(
            s.index,
            .log(
                id: id,
                record: .bounded(level: level, message: message(), metadata: metadata(), dropped: dropped)))
    }
}

/// What `GraphLogHandler` files records through. `package`: not API of the library.
package enum LogNodes {
    /// The node a record made now belongs to: the innermost of `GraphScope.current` (a scope
    /// or a `GraphTask` body) and the span current in the trace context (`GraphTracer`).
    @inline(__always)
    package static func current() -> AnyGraphTask? {
        let scope = ScopeContext.node
        guard SpanNodes.lookupInstalled.load(ordering: .relaxed), let span = SpanNodes.contextSpan() else {
            return scope
        }
        guard let scope, scope.graph === span.graph else { return span }
        // The scope is the innermost unless the span was started inside it.
        return SpanNodes.isAncestor(scope, of: span) ? span : scope
    }

    /// Records a record for `node`; `metadata` is evaluated only when it is recorded.
    @inline(__always)
    package static func record(
        _ node: AnyGraphTask, level: String, message: @autoclosure () -> String,
        metadata: @autoclosure () -> [String: String]
    ) {
        node.withStripe { s in
            node.graph.emitLog(s, node.id, level: level, message: message(), metadata: metadata())
        }
    }
}

/// The log budget of one graph (`Graph.logBudgetPerSecond`): records admitted in the current
/// second, and those dropped since the last admitted one.
final class LogBudget: @unchecked Sendable { // state behind `lock`
    private let lock = Lock()
    @exclusivity(unchecked) private var windowStart = -Double.infinity
    @exclusivity(unchecked) private var admitted = 0
    @exclusivity(unchecked) private var dropped = 0
    let perSecond: Int

    init(perSecond: Int = Graph.logBudgetPerSecond) { self.perSecond = perSecond }

    /// Nil: drop this record (counted). Otherwise the records dropped before it.
    func admit(now: Double) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if now - windowStart >= 1 {
            windowStart = now
            admitted = 0
        }
        guard admitted < perSecond else {
            dropped += 1
            return nil
        }
        admitted += 1
        let before = dropped
        dropped = 0
        return before
    }
}

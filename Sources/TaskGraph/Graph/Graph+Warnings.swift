import Synchronization

/// Warnings about nodes (`GraphChange.warn`): the producer, and the graph's own
/// `ignoresCancel` rule (`CancelWatch`).
extension Graph {
    /// Records that a warning of `rule` about node `id` began (`text`: why, cut to 4 KiB) or,
    /// with `text` nil, ended, as a `warn` event, for recorders and viewers; snapshots carry
    /// the node's current warnings. A node has at most one warning a rule: the same text again,
    /// or an end of a warning it does not have, records nothing. Unknown or dropped nodes are
    /// ignored. (taskview's `slow` and `silent` rules, and `ignoresCancel` for commands.)
    package func warn(_ id: NodeID, rule: String, text: String?) {
        let raw = id.rawValue
        guard raw >= 0 else { return }
        let text = text.map(cut)
        withAllStripes { warnLocked(raw, rule: rule, text: text) }
    }

    /// `warn`, every stripe locked.
    func warnLocked(_ raw: Int, rule: String, text: String?) {
        assertAllStripesLocked()
        guard let (s, _) = locateLocked(raw) else {
            cancelWatch.current[raw] = nil
            return
        }
        let old = cancelWatch.current[raw]?[rule]
        guard old != text else { return }
        cancelWatch.current[raw, default: [:]][rule] = text
        if cancelWatch.current[raw]?.isEmpty == true { cancelWatch.current[raw] = nil }
        emit(s, .warn(id: NodeID(raw), rule: rule, text: text))
    }

    /// The body of node `id` (a scope's `ScopeDriver`, or an `AsyncBodyGate`) still ran when
    /// the node was cancelled: looked at again `CancelWatch.grace` seconds from now.
    func watchCancelledBody(_ id: Int, body: AnyObject) {
        guard cancelWatch.watch(id, body: body, now: clock.now) else { return }
        scheduleCancelCheck(after: CancelWatch.grace)
    }

    private func scheduleCancelCheck(after seconds: Double) {
        clock.schedule(after: seconds) { [weak self] in self?.checkCancelledBodies() }
    }

    /// The timer: warns about each watched body that is due and has not returned.
    private func checkCancelledBodies() {
        let now = clock.now
        let (due, next) = cancelWatch.takeDue(now: now)
        if let next { scheduleCancelCheck(after: max(0, next - now)) }
        for (id, body) in due {
            let text = "ignores cancel: still running \(CancelWatch.grace.formatted)s after it was cancelled"
            withAllStripes {
                // Marked under the stripes' locks: a body that returns meanwhile ends the warning
                // only after it was recorded.
                guard Graph.markWarned(body) else { return }
                warnLocked(id, rule: WarningRule.ignoresCancel, text: text)
            }
        }
    }

    /// Sets the body's `warned` bit unless it returned; true when it was set.
    private static func markWarned(_ body: AnyObject) -> Bool {
        if let d = body as? ScopeDriver { return markWarned(d.gate) }
        if let g = body as? AsyncBodyGate { return markWarned(g.bits) }
        return false
    }

    private static func markWarned(_ bits: borrowing Atomic<UInt8>) -> Bool {
        var old = bits.load(ordering: .acquiring)
        while old & ScopeGate.done == 0 {
            let (exchanged, now) = bits.weakCompareExchange(
                expected: old, desired: old | ScopeGate.warned, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            old = now
        }
        return false
    }

    /// A watched body that was warned about returned: its warning ends.
    func cancelledBodyReturned(_ id: Int) {
        withAllStripes { warnLocked(id, rule: WarningRule.ignoresCancel, text: nil) }
    }
}

extension Double {
    /// `1` for whole numbers, else the number as Swift prints it.
    fileprivate var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

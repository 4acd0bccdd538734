#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a cancel of a scope's node reaches the Swift task that runs its body, without a lock:
/// the bits of `ScopeDriver.gate`.
///
/// The task is an `async let` child of `withGraphTask`'s caller, destroyed as soon as it
/// returns (the runtime frees it whatever its reference count), so a canceller may touch it
/// only while the task cannot have returned: between setting `cancelling` (possible only
/// while `running` is set and `done` is not) and clearing it; the task, before it returns,
/// waits for `cancelling` to clear, then sets `done`.
enum ScopeGate {
    /// The task published itself in `swiftTask` and runs the body.
    static let running: UInt8 = 1
    /// A canceller is cancelling the task: it must not return meanwhile.
    static let cancelling: UInt8 = 2
    /// The task ended: nobody touches it any more.
    static let done: UInt8 = 4
    /// The node was cancelled: a task that starts after it cancels itself.
    static let requested: UInt8 = 8
    /// The graph warned that the body ignores its cancel (`CancelWatch`): its return ends
    /// the warning.
    static let warned: UInt8 = 16
}

extension ScopeDriver {
    /// Called by the task that runs the body, first: publishes it; cancels it at once when the
    /// node was cancelled before it started.
    @usableFromInline
    final func enterSwiftTask(_ task: UnsafeCurrentTask?) {
        swiftTask = task
        let old = gate.bitwiseOr(ScopeGate.running, ordering: .acquiringAndReleasing).oldValue
        if old & ScopeGate.requested != 0 { task?.cancel() }
    }

    /// Called by the task that runs the body, last: waits for a canceller that is cancelling
    /// it (rare, and as long as the task's cancellation handlers run), then lets go of it.
    /// True when the graph had warned that the body ignores its cancel.
    @usableFromInline @discardableResult
    final func exitSwiftTask() -> Bool {
        var old = gate.load(ordering: .acquiring)
        while true {
            if old & ScopeGate.cancelling != 0 {
                sched_yield()
                old = gate.load(ordering: .acquiring)
                continue
            }
            let (exchanged, now) = gate.weakCompareExchange(
                expected: old, desired: (old & ~ScopeGate.running) | ScopeGate.done,
                ordering: .acquiringAndReleasing)
            if exchanged { break }
            old = now
        }
        swiftTask = nil
        return old & ScopeGate.warned != 0
    }

    /// The node was cancelled: cancels the task that runs the body if it runs, else has it
    /// cancel itself when it starts (`enterSwiftTask`). True when the body was running.
    @discardableResult
    final func cancelSwiftTask() -> Bool {
        var old = gate.load(ordering: .acquiring)
        while true {
            if old & ScopeGate.done != 0 { return false }
            var new = old | ScopeGate.requested
            if old & ScopeGate.running != 0 { new |= ScopeGate.cancelling }
            let (exchanged, now) = gate.weakCompareExchange(
                expected: old, desired: new, ordering: .acquiringAndReleasing)
            if exchanged { break }
            old = now
        }
        guard old & ScopeGate.running != 0 else { return false }
        cancelPublishedTask()
        gate.bitwiseAnd(~ScopeGate.cancelling, ordering: .acquiringAndReleasing)
        return true
    }

    /// Cancels the published task; its own frame, so that the copy of the task reference it
    /// makes is released before `cancelling` is cleared.
    @inline(never)
    private func cancelPublishedTask() {
        swiftTask?.cancel()
    }
}

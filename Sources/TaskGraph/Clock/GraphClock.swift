import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// The time source of a graph: every timestamp, `delay` and `timeout` of the graph uses it.
public protocol GraphClock: Sendable {
    /// Seconds, monotonic.
    var now: Double { get }
    /// Runs `action` once, `seconds` from now (at once for `seconds <= 0`, but never inline).
    @discardableResult
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any GraphTimer
}

/// A scheduled action; it lives until it fires or is cancelled.
public protocol GraphTimer: Sendable {
    /// Stops the action from running if it has not run yet.
    func cancel()
}

/// Real, monotonic time. Timers fire on a global dispatch queue.
public struct MonotonicClock: GraphClock {
    /// The system's monotonic clock.
    public init() {}

    /// Seconds of `CLOCK_MONOTONIC`.
    public var now: Double { monotonicSeconds() }

    /// Runs `action` on a global dispatch queue after `seconds` (at once for 0 or less).
    @discardableResult
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any GraphTimer {
        let item = DispatchWorkItem(block: action)
        let nanos = seconds > 0 ? Int(min(seconds, 1e9) * 1e9) : 0
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanos), execute: item)
        return DispatchTimer(item: item)
    }
}

struct DispatchTimer: GraphTimer, @unchecked Sendable { // DispatchWorkItem is thread-safe
    let item: DispatchWorkItem
    func cancel() { item.cancel() }
}

/// A clock whose time moves only when told: a graph on it runs deterministically (same
/// program, same events, same timestamps) and tests need not sleep. Time is kept in integer
/// nanoseconds, so 0.1 + 0.2 prints as 0.3. Timers due at the same time run in the order
/// they were scheduled, on the thread that moves the clock.
public final class VirtualClock: GraphClock, @unchecked Sendable { // state behind `lock`
    private struct Entry {
        let due: Int64
        let order: UInt64
        let timer: VirtualTimer
    }

    private let lock = Lock()
    private var nowNanos: Int64 = 0
    private var counter: UInt64 = 0
    private var heap: [Entry] = []

    /// A clock at time 0 with no timers.
    public init() {}

    /// The current virtual time in seconds (moves only with `advance(by:)`, `runNext()` or `runUntilIdle()`).
    public var now: Double { lock.withLock { Double(nowNanos) / 1e9 } }

    /// The due time of the next timer (nil when none is pending).
    public var nextDue: Double? {
        lock.withLock {
            purgeCancelled()
            return heap.first.map { Double($0.due) / 1e9 }
        }
    }

    /// Schedules `action` at `now + seconds`; it runs when the clock is moved past that time.
    @discardableResult
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any GraphTimer {
        let timer = VirtualTimer(action)
        lock.withLock {
            let delta = seconds > 0 ? Int64((min(seconds, 1e9) * 1e9).rounded()) : 0
            counter += 1
            push(Entry(due: nowNanos + delta, order: counter, timer: timer))
        }
        return timer
    }

    /// Jumps to the next timer and runs it; false when no timer is pending.
    @discardableResult
    public func runNext() -> Bool {
        guard let entry = popNext(limit: nil) else { return false }
        entry.timer.fire()
        return true
    }

    /// Runs every timer due within `seconds` from now, in order, each with `now` equal to its
    /// due time, then sets `now` to the end of the span.
    public func advance(by seconds: Double) {
        let end: Int64 = lock.withLock {
            nowNanos + (seconds > 0 ? Int64((min(seconds, 1e9) * 1e9).rounded()) : 0)
        }
        while let entry = popNext(limit: end) { entry.timer.fire() }
        lock.withLock { if nowNanos < end { nowNanos = end } }
    }

    /// Runs timers (including those they schedule) until none is pending.
    public func runUntilIdle() {
        while runNext() {}
    }

    private func popNext(limit: Int64?) -> Entry? {
        lock.withLock {
            purgeCancelled()
            guard let first = heap.first else { return nil }
            if let limit, first.due > limit { return nil }
            let entry = pop()
            if entry.due > nowNanos { nowNanos = entry.due }
            return entry
        }
    }

    private func purgeCancelled() {
        while let first = heap.first, first.timer.isCancelled { _ = pop() }
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.due != b.due ? a.due < b.due : a.order < b.order
    }

    private func push(_ e: Entry) {
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard Self.before(heap[i], heap[p]) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    private func pop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < heap.count && Self.before(heap[l], heap[m]) { m = l }
                if r < heap.count && Self.before(heap[r], heap[m]) { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
        }
        return top
    }
}

final class VirtualTimer: GraphTimer, @unchecked Sendable { // state behind `lock`
    private let lock = Lock()
    private var action: (@Sendable () -> Void)?

    init(_ action: @escaping @Sendable () -> Void) { self.action = action }

    var isCancelled: Bool { lock.withLock { action == nil } }

    func cancel() {
        let dropped = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        _ = dropped // released outside the lock
    }

    func fire() {
        let run = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        run?()
    }
}

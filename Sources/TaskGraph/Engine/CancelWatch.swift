import Synchronization

/// The graph's `ignoresCancel` rule (`WarningRule`): bodies still running after their node was
/// cancelled. A cancel of a scope whose body runs, or of a `GraphTask.async` task, hands the
/// body's gate here; one timer on the graph's clock looks at each 1 s later, and warns about
/// those whose body has not returned. Nothing is on a task's path: a graph that never cancels
/// a running body never takes `lock` and never arms the timer.
///
/// Also the graph's current warnings (any rule, taskview's too), for snapshots: a viewer that
/// attaches late sees them.
final class CancelWatch: @unchecked Sendable { // `watched`, `armed`: `lock`; `current`: every stripe
    /// How long a body may run on after its node was cancelled before it is warned about.
    static let grace = 1.0

    private struct Entry {
        let id: Int
        let due: Double
        /// A `ScopeDriver` or an `AsyncBodyGate`.
        let body: AnyObject
    }

    private let lock = Lock()
    private var watched: [Entry] = []
    private var armed = false

    /// Current warnings by raw node id, then rule: their texts. Written with every stripe of
    /// the graph locked (with the event that changes it), so snapshots agree with events.
    @exclusivity(unchecked) var current: [Int: [String: String]] = [:]

    /// Watches the body of node `id` cancelled at `now`; true when the timer must be armed
    /// (for `now + grace`).
    func watch(_ id: Int, body: AnyObject, now: Double) -> Bool {
        lock.withLock {
            watched.append(Entry(id: id, due: now + Self.grace, body: body))
            defer { armed = true }
            return !armed
        }
    }

    /// The entries due by `now`, and when the timer must fire next (nil: disarmed).
    func takeDue(now: Double) -> (due: [(id: Int, body: AnyObject)], next: Double?) {
        lock.withLock {
            var due: [(id: Int, body: AnyObject)] = []
            var rest: [Entry] = []
            for e in watched {
                if e.due <= now { due.append((e.id, e.body)) } else { rest.append(e) }
            }
            watched = rest
            let next = rest.map(\.due).min()
            armed = next != nil
            return (due, next)
        }
    }
}

/// The gate of a `GraphTask.async` body, as `ScopeGate`'s bits: `running` until the body
/// returns (`done`), `warned` once the graph warned that it ignores its cancel.
final class AsyncBodyGate: Sendable {
    let bits = Atomic<UInt8>(ScopeGate.running)

    /// The body returned; true when it had been warned about (the warning ends now).
    func end() -> Bool {
        bits.bitwiseOr(ScopeGate.done, ordering: .acquiringAndReleasing).oldValue & ScopeGate.warned != 0
    }
}

import Dispatch

/// One registered handler. Kept in one list so handlers run in registration order.
enum Handler<Success: Sendable, Failure: Error> {
    case success(@Sendable (Success) -> Void)
    case failure(@Sendable (Failure) -> Void)
    case completion(@Sendable (Result<Success, Failure>) -> Void)
    case progress(@Sendable (TaskProgress) -> Void)
    /// Internal waiters (`value`, `wait`): the outcome, or nil when cancelled.
    case settled(@Sendable (Result<Success, Failure>?) -> Void)

    /// Calls the handler for a settled outcome (progress handlers ignore it).
    @inline(__always)
    func call(with result: Result<Success, Failure>) {
        switch self {
        case .success(let h): if case .success(let v) = result { h(v) }
        case .failure(let h): if case .failure(let e) = result { h(e) }
        case .completion(let h): h(result)
        case .settled(let h): h(result)
        case .progress: break
        }
    }

    var isProgress: Bool {
        if case .progress = self { return true }
        return false
    }
}

/// The handler list: the first handler inline (most tasks have exactly one), the rest in
/// an array.
struct HandlerList<Success: Sendable, Failure: Error> {
    var first: Handler<Success, Failure>?
    var rest: [Handler<Success, Failure>] = []
    var progressCount = 0

    var isEmpty: Bool { first == nil }

    mutating func append(_ h: Handler<Success, Failure>) {
        if h.isProgress { progressCount += 1 }
        if first == nil { first = h } else { rest.append(h) }
    }

    @inline(__always)
    func forEach(_ body: (Handler<Success, Failure>) -> Void) {
        guard let first else { return }
        body(first)
        for h in rest { body(h) }
    }

    func forEachProgress(_ body: (@Sendable (TaskProgress) -> Void) -> Void) {
        guard progressCount > 0 else { return }
        forEach { if case .progress(let h) = $0 { body(h) } }
    }
}

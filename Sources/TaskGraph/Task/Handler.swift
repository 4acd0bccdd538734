/// What an erased handler is told: the task settled (the pointer is to its
/// `Result<Success, Failure>`), was cancelled (no pointer), or reported progress (the pointer
/// is to a `TaskProgress`).
@usableFromInline
enum HandlerEvent: UInt8 {
    case settled, cancelled, progress
}

/// One registered handler with its types erased, so a task's handler list has the same
/// layout whatever its result types and is freed without generic metadata lookups. The
/// typed wrapper is made where the handler is registered (specialized code).
@usableFromInline
struct HandlerEntry: Sendable {
    @usableFromInline let isProgress: Bool
    @usableFromInline let call: @Sendable (HandlerEvent, UnsafeRawPointer?) -> Void

    @inlinable
    init(isProgress: Bool, _ call: @escaping @Sendable (HandlerEvent, UnsafeRawPointer?) -> Void) {
        self.isProgress = isProgress
        self.call = call
    }
}

/// The handler list: the first handler inline (most tasks have exactly one), the rest in
/// an array. Handlers run in registration order.
@usableFromInline
struct HandlerList {
    @usableFromInline var first: HandlerEntry?
    @usableFromInline var rest: [HandlerEntry] = []
    @usableFromInline var progressCount = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { first == nil }

    /// How many handlers (of every kind) were registered.
    @inlinable var count: Int { first == nil ? 0 : 1 + rest.count }

    @inlinable
    mutating func append(_ h: HandlerEntry) {
        if h.isProgress { progressCount += 1 }
        if first == nil { first = h } else { rest.append(h) }
    }

    /// Tells every handler (progress handlers ignore `settled`/`cancelled`, and the others
    /// ignore `progress`).
    @inlinable
    func send(_ event: HandlerEvent, _ pointer: UnsafeRawPointer?) {
        guard let first else { return }
        if event == .progress {
            guard progressCount > 0 else { return }
            if first.isProgress { first.call(event, pointer) }
            for h in rest where h.isProgress { h.call(event, pointer) }
        } else {
            if !first.isProgress { first.call(event, pointer) }
            for h in rest where !h.isProgress { h.call(event, pointer) }
        }
    }

    /// Tells the settled handlers registered as number `from` up to `to` (exclusive).
    @usableFromInline
    func sendSettled(_ pointer: UnsafeRawPointer, from: Int, to: Int) {
        guard let first, from < to else { return }
        if from == 0, !first.isProgress { first.call(.settled, pointer) }
        var i = max(from, 1)
        let end = min(to, rest.count + 1)
        while i < end {
            let h = rest[i - 1]
            if !h.isProgress { h.call(.settled, pointer) }
            i += 1
        }
    }

    /// Tells the progress handlers about `p`.
    @inlinable
    func sendProgress(_ p: TaskProgress) {
        guard progressCount > 0 else { return }
        withUnsafePointer(to: p) { send(.progress, UnsafeRawPointer($0)) }
    }
}

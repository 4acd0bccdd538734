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
/// an array. Handlers run in registration order. The first handler's closure and kind are
/// stored apart, so the list packs into 29 bytes and the task's small fields follow it.
@usableFromInline
struct HandlerList {
    @usableFromInline var firstCall: (@Sendable (HandlerEvent, UnsafeRawPointer?) -> Void)?
    @usableFromInline var rest: [HandlerEntry] = []
    @usableFromInline var progressCount32: UInt32 = 0
    @usableFromInline var firstIsProgress = false

    @inlinable init() {}

    @inlinable var isEmpty: Bool { firstCall == nil }

    /// How many progress handlers were registered.
    @inlinable var progressCount: Int { Int(progressCount32) }

    /// How many handlers (of every kind) were registered.
    @inlinable var count: Int { firstCall == nil ? 0 : 1 + rest.count }

    @inlinable
    mutating func append(_ h: HandlerEntry) {
        if h.isProgress { progressCount32 += 1 }
        if firstCall == nil {
            firstCall = h.call
            firstIsProgress = h.isProgress
        } else {
            rest.append(h)
        }
    }

    /// Tells every handler (progress handlers ignore `settled`/`cancelled`, and the others
    /// ignore `progress`).
    @inlinable
    func send(_ event: HandlerEvent, _ pointer: UnsafeRawPointer?) {
        guard let firstCall else { return }
        if event == .progress {
            guard progressCount32 > 0 else { return }
            if firstIsProgress { firstCall(event, pointer) }
            for h in rest where h.isProgress { h.call(event, pointer) }
        } else {
            if !firstIsProgress { firstCall(event, pointer) }
            for h in rest where !h.isProgress { h.call(event, pointer) }
        }
    }

    /// Tells the settled handlers registered as number `from` up to `to` (exclusive).
    @usableFromInline
    func sendSettled(_ pointer: UnsafeRawPointer, from: Int, to: Int) {
        guard let firstCall, from < to else { return }
        if from == 0, !firstIsProgress { firstCall(.settled, pointer) }
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
        guard progressCount32 > 0 else { return }
        withUnsafePointer(to: p) { send(.progress, UnsafeRawPointer($0)) }
    }
}

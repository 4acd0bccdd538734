import Tracing

/// `ServiceContext.current`, read on every node that starts executing, made cheap for the
/// common case of no context bound.
///
/// The library's getter runs `TaskLocal.get()` unspecialized: beyond the runtime's lookup it
/// copies the optional through value witnesses, about 160 instructions a read, which made a
/// traced task dearer than a recorded one. The runtime's own lookup (`swift_task_localValueGet`,
/// the entry point `TaskLocal.get()` calls, keyed by the task-local object) answers "nothing
/// bound" in about a third of that; only when something is bound is the value read through
/// `ServiceContext.current` itself, so the value always comes from the public API.
enum TaskLocalContext {
    /// The key the runtime files `ServiceContext.current`'s bindings under: the task-local's
    /// object (immortal: a global's property wrapper).
    private static let key = UInt(bitPattern: ObjectIdentifier(ServiceContext.$current))

    @inline(__always)
    static func current() -> ServiceContext? {
        guard swift_task_localValueGet(UnsafeRawPointer(bitPattern: key)) != nil else { return nil }
        return ServiceContext.current
    }
}

/// The Swift runtime's task-local lookup: the binding of `key` in the current task (or, on a
/// thread outside any task, in the thread's own bindings); nil when none.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("swift_task_localValueGet")
private func swift_task_localValueGet(_ key: UnsafeRawPointer?) -> UnsafeMutableRawPointer?

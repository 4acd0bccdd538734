import Synchronization

/// The lookup a tracer installs once and every scope calls: which node the current trace
/// context names.
///
/// The closure lives in a class, so a read copies a reference out of the lock. A `Mutex`
/// holding the closure itself, read with `withLock { $0 }`, writes it back wrapped in two
/// reabstraction thunks (Swift 6.3, optimized or not): every read made the next one two calls
/// deeper, and a server with a tracer slowed down with every request.
package final class ContextLookupSlot: Sendable {
    private final class Installed: Sendable {
        let find: @Sendable () -> AnyGraphTask?
        init(_ find: @escaping @Sendable () -> AnyGraphTask?) { self.find = find }
    }

    private let installed = Mutex<Installed?>(nil)

    package init() {}

    /// Makes `find` the lookup (the last call wins).
    package func install(_ find: @escaping @Sendable () -> AnyGraphTask?) {
        let box = Installed(find)
        installed.withLock { $0 = box }
    }

    /// The installed lookup's answer; nil when none is installed.
    package func find() -> AnyGraphTask? {
        installed.withLock { $0 }?.find()
    }
}

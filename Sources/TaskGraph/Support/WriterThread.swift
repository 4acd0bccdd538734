#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A detached thread that calls `step` until it returns false: the consumer of a `Spool`
/// (a recorder's writer) or the attach server's loop. Detached, so it never keeps the process
/// alive; `step` is expected to sleep (e.g. `Spool.waitForWork`) rather than spin.
final class WriterThread: @unchecked Sendable {   // immutable
    private let step: @Sendable () -> Bool

    init(_ step: @escaping @Sendable () -> Bool) {
        self.step = step
    }

    /// Starts the thread; if no thread can be created, returns false (the caller's own
    /// flushes still drain its spool).
    @discardableResult
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let r = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            let me = Unmanaged<WriterThread>.fromOpaque(arg).takeRetainedValue()
            while me.step() {}
            return nil
        }, context)
        guard r == 0 else {
            Unmanaged<WriterThread>.fromOpaque(context).release()
            return false
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        if let thread { pthread_detach(thread) }
        #endif
        return true
    }
}

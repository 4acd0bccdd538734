#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A detached thread that calls `step` until it returns false: the consumer of a `Spool`
/// (a recorder's writer) or the attach server's loop. Detached, so it never keeps the process
/// alive; `step` is expected to sleep (e.g. `Spool.waitForWork`) rather than spin.
final class WriterThread: @unchecked Sendable { // immutable
    private let step: @Sendable () -> Bool
    private let yieldsToProgram: Bool

    /// `yieldsToProgram`: run below the program's threads (for a consumer that may drop what
    /// it cannot keep up with, as the attach server does, never for a recorder's writer,
    /// which the program waits for when its spool is full).
    init(yieldsToProgram: Bool = false, _ step: @escaping @Sendable () -> Bool) {
        self.yieldsToProgram = yieldsToProgram
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
        let r = pthread_create(
            &thread, nil,
            { arg in
                guard let arg else { return nil }
                let me = Unmanaged<WriterThread>.fromOpaque(arg).takeRetainedValue()
                if me.yieldsToProgram { lowerPriority() }
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

/// Nice 10 for the calling thread only (Linux keeps a nice value per thread): when the cores
/// are busy, the program being watched keeps them and this thread takes what is left.
/// Measured (attach-bench, 2 cores, W1 with one viewer reading): 2.3-3.4x plain at nice 0,
/// 1.9-2.0x at nice 10, the same as recording to a file.
private func lowerPriority() {
    #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    #endif
}

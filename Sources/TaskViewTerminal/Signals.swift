import CNcurses
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT/SIGTERM/SIGHUP handling that lets the main loop restore the terminal: the handlers
/// only record the signal (and wake the reacting thread); the loop polls `pending` between
/// key waits. SIGHUP (the terminal went away: window closed, ssh dropped) ends the session
/// like SIGTERM (docs/taskview.md).
///
/// A signal must be acted on within a second whatever the main thread is busy with (building
/// a 100,000-node graph, one long cascade of zero-duration work), so `react(_:)` also runs a
/// reaction on a thread of its own, at once: cancel the run's root, or exit before anything
/// started.
package enum Signals {
    static let received = Atomic<Int32>(0)
    /// The pipe the handlers write a byte into, read by the reacting thread (-1: none yet).
    static let wakeWrite = Atomic<Int32>(-1)
    /// The reaction, in a class (`WatcherBody`'s reason: a `Mutex` holding a closure itself
    /// wraps it in more thunks on every read).
    private static let reaction = Mutex<Reaction?>(nil)
    private static let watcher = Mutex<Bool>(false)

    /// Clears the signal mask inherited from the parent (Swift Testing blocks SIGINT,
    /// SIGTERM, SIGWINCH and more in the processes it spawns). Call at program start.
    package static func unblockAll() {
        tv_unblock_signals()
    }

    /// Caps the process's malloc arenas at two and fixes its mmap threshold at 256 KiB
    /// (glibc; elsewhere nothing): memory one thread allocates and another frees is reused
    /// instead of spread over many arenas, and large arrays are mapped and unmapped instead
    /// of fragmenting the arenas. Call at program start, before other threads exist.
    package static func tuneMalloc() {
        tv_tune_malloc()
    }

    /// Installs the handlers (before curses starts, so ncurses keeps its hands off them).
    /// No SA_RESTART: a signal interrupts the key wait at once.
    package static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { sig in
            Signals.received.store(sig, ordering: .relaxed)
            let fd = Signals.wakeWrite.load(ordering: .relaxed)
            guard fd >= 0 else { return }
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: sig)
            _ = write(fd, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGHUP, &action, nil) // the terminal went away: like SIGTERM
    }

    /// The signal received since the last `reset` (0: none).
    package static var pending: Int32 { received.load(ordering: .relaxed) }

    /// Forgets a received signal.
    package static func reset() { received.store(0, ordering: .relaxed) }

    /// From now on, each signal also runs `action` (nil: none) on the reacting thread, and a
    /// signal already pending runs it at once. Installs the handlers and starts that thread
    /// on first use. `action` must be safe to run beside whatever the main thread does.
    package static func react(_ action: (@Sendable (Int32) -> Void)?) {
        install()
        startWatcher()
        let box = action.map(Reaction.init)
        reaction.withLock { $0 = box }
        let sig = pending
        if sig != 0, let action { action(sig) }
    }

    /// Writes `message` to stderr and ends the process with status 130 at once, without
    /// running exit handlers or flushing stdout: for a signal before anything started (no
    /// terminal state, no process, no file of the run to finish).
    package static func exitAtOnce(_ message: String) -> Never {
        writeStderr(message)
        _exit(130)
    }

    private static func startWatcher() {
        let first = watcher.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return } // no thread: the main loop's polling stays
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK) // a handler never blocks
        let readEnd = fds[0]
        let body = Unmanaged.passRetained(WatcherBody { watch(readEnd) })
        var thread = pthread_t()
        guard
            pthread_create(
                &thread, nil,
                { raw in
                    Unmanaged<WatcherBody>.fromOpaque(raw!).takeRetainedValue().run()
                    return nil
                }, body.toOpaque()) == 0
        else {
            body.release()
            close(fds[0])
            close(fds[1])
            return
        }
        pthread_detach(thread)
        wakeWrite.store(fds[1], ordering: .relaxed)
    }

    /// The reacting thread: for each byte a handler wrote, the current reaction.
    private static func watch(_ fd: Int32) {
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return }
            let sig = Int32(byte)
            if let box = reaction.withLock({ $0 }) { box.action(sig) }
        }
    }
}

/// The action each signal runs.
private final class Reaction: Sendable {
    let action: @Sendable (Int32) -> Void
    init(_ action: @escaping @Sendable (Int32) -> Void) { self.action = action }
}

/// A closure carried through `pthread_create`'s context pointer.
private final class WatcherBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

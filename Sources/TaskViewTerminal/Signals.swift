import CNcurses
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT/SIGTERM/SIGHUP handling that lets the main loop restore the terminal: the handlers
/// only record the signal; the loop polls `pending` between key waits. SIGHUP (the terminal
/// went away: window closed, ssh dropped) ends the session like SIGTERM (docs/taskview.md).
package enum Signals {
    static let received = Atomic<Int32>(0)

    /// Clears the signal mask inherited from the parent (Swift Testing blocks SIGINT,
    /// SIGTERM, SIGWINCH and more in the processes it spawns). Call at program start.
    package static func unblockAll() {
        tv_unblock_signals()
    }

    /// Installs the handlers (before curses starts, so ncurses keeps its hands off them).
    /// No SA_RESTART: a signal interrupts the key wait at once.
    package static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { sig in
            Signals.received.store(sig, ordering: .relaxed)
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
}

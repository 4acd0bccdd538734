import TaskViewCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends a run's end-of-run notification to the terminal on standard output (after curses
/// has given the terminal back): only when standard output is a terminal.
package enum RunNotifier {
    /// Whether standard output is a terminal.
    package static var hasTerminal: Bool { isatty(1) != 0 }

    /// Writes `notification`'s sequence (wrapped for tmux when `$TMUX` is set).
    package static func send(_ notification: RunNotification) {
        let tmux = getenv("TMUX").map { $0.pointee != 0 } ?? false
        let bytes = Array(notification.sequence(insideTmux: tmux).utf8)
        fflush(nil) // what print() buffered goes first
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// Seconds on the monotonic clock (for a run's length).
    package static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

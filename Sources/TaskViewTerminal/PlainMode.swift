import CNcurses
import TaskViewCore
import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// `p`: the dashboard leaves the alternate screen and prints plain lines (state changes
/// and output lines) as they come, the missed ones first (the last `PlainFeed.capacity`),
/// so the terminal's own scrollback, search and copy work; `p` or any key returns. The run
/// goes on: the source keeps ticking.
enum PlainMode {
    /// Runs plain mode until a key or a signal; `tick` absorbs what arrived (returns the
    /// model to format lines against).
    static func run(
        feed: PlainFeed, terminal: Terminal, wake: [Int32], tick: () -> DashboardModel
    ) {
        terminal.suspend()
        defer { terminal.resume() }
        // Keys arrive one at a time and are not echoed; Ctrl-C still signals.
        let input = terminal.inputDescriptor
        var saved = termios()
        let haveTermios = tcgetattr(input, &saved) == 0
        if haveTermios {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutablePointer(to: &raw.c_cc) {
                $0.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { cc in
                    cc[Int(VMIN)] = 1
                    cc[Int(VTIME)] = 0
                }
            }
            tcsetattr(input, TCSANOW, &raw)
        }
        defer { if haveTermios { tcsetattr(input, TCSANOW, &saved) } }

        emit("taskview: plain mode (p or any key returns to the dashboard)\n")
        var seen = max(0, feed.total - PlainFeed.capacity)
        var model = tick()
        while true {
            let (events, dropped) = feed.events(after: seen)
            seen = feed.total
            var text = dropped > 0 ? "... \(dropped) lines not kept\n" : ""
            for e in events {
                if let line = PlainFeed.line(for: e, in: model.tree) { text += line + "\n" }
            }
            if !text.isEmpty { emit(text) }
            if Signals.pending != 0 { return }
            var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0)]
            for fd in wake { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), 100)
            if n > 0 && fds[0].revents != 0 {
                // Any key returns; what it was (a whole escape sequence too) is consumed.
                var buf = [UInt8](repeating: 0, count: 64)
                _ = read(input, &buf, buf.count)
                return
            }
            model = tick()
        }
    }

    /// Writes `text` to the terminal (stdout), whole.
    static func emit(_ text: String) {
        var bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                return
            }
            off += n
        }
    }
}

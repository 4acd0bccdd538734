import CNcurses
import TaskViewCore
import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// `o`: a command's whole output in `$PAGER` (default `less -R`) with the dashboard
/// suspended: curses steps aside (`def_prog_mode`, `endwin`), the pager gets the terminal
/// with its own modes, and curses comes back (`reset_prog_mode`, `refresh`). Events keep
/// being absorbed meanwhile; Ctrl-C belongs to the pager while it runs.
enum Pager {
    /// The pager command line: `$PAGER`, or `less -R` when unset or empty.
    static var command: String {
        if let p = getenv("PAGER"), p.pointee != 0 { return String(cString: p) }
        return "less -R"
    }

    /// Shows `path` in the pager; `idle` runs about every 100 ms while it is open (and at
    /// once when a descriptor in `wake` becomes readable). Returns a footer message when the
    /// pager could not run or failed (the dashboard stays; the terminal is restored either
    /// way), nil after the person quit it.
    static func show(path: String, terminal: Terminal, wake: [Int32], idle: () -> Void) -> String? {
        let pager = command
        let program = pager.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) ?? ""
        guard isExecutable(program) else {
            return "Cannot open the output: $PAGER \"\(Sanitizer.clean(program))\" does not exist"
        }
        terminal.suspend()
        defer {
            terminal.resume()
            Signals.install()
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGQUIT, SIG_IGN)
        guard let pid = spawn(pager, path) else {
            return "Cannot open the output: $PAGER \"\(Sanitizer.clean(program))\" could not start"
        }
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Signals.pending != 0 {
                // SIGTERM or SIGHUP: the session ends; so does the pager.
                kill(pid, SIGTERM)
                _ = waitpid(pid, &status, 0)
                return nil
            }
            var fds = wake.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            idle()
        }
        return failure(program: program, waitStatus: status)
    }

    /// The footer message for a pager that ended with `waitStatus` (from `waitpid`), nil when
    /// it exited 0. `sh` says 126/127 when it could not run the pager at all.
    static func failure(program: String, waitStatus status: Int32) -> String? {
        let name = "$PAGER \"\(Sanitizer.clean(program))\""
        let signal = status & 0x7f
        if signal != 0 && signal != 0x7f { return "The pager failed: \(name) was killed by signal \(signal)" }
        let code = (status >> 8) & 0xff
        switch code {
        case 0: return nil
        case 126, 127: return "Cannot open the output: \(name) could not start (status \(code))"
        default: return "The pager failed: \(name) exited with status \(code)"
        }
    }

    /// `sh -c 'exec PAGER "$1"' sh PATH`, with default signal handling and nothing blocked.
    static func spawn(_ pager: String, _ path: String) -> pid_t? {
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGTSTP] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let args = ["sh", "-c", "exec " + pager + " \"$1\"", "sh", path]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, "/bin/sh", nil, &attr, &argv, environ)
        return r == 0 ? pid : nil
    }

    /// Whether `program` names an executable file (a path, or found on `$PATH`).
    static func isExecutable(_ program: String) -> Bool {
        guard !program.isEmpty else { return false }
        if program.contains("/") { return access(program, X_OK) == 0 }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }
}

import CTaskGraphProcess
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Process-wide guarantees that no process started by a command outlives the program, for
/// programs (such as taskview) that own their whole process tree. Every command's processes
/// carry a mark in their environment (`TASKGRAPH_COMMAND`), inherited by whatever they start;
/// a command node that ends, or is cancelled, also ends the marked processes that left its
/// process group (daemons that call `setsid`). On top of that, a program may:
///
/// - `adoptOrphans()`: become a child subreaper (Linux), so that orphaned descendants are
///   reparented to it rather than to init, and `terminateLeftovers(grace:)` finds them even
///   when they cleared their environment;
/// - `startWatchdog(grace:)`: fork a small process that, when this one is gone (even by
///   `kill -9`), ends every marked process and every command's process group;
/// - `terminateLeftovers(grace:)`: at exit, end every descendant and marked process left.
///
/// Limits: a process that both clears its environment and leaves its process group escapes
/// the watchdog (not `terminateLeftovers` while we are its subreaper); a process of another
/// user, or in another PID namespace, cannot be seen or signalled.
public enum ProcessTeardown {
    private struct State {
        var watchdogPid: pid_t = 0
        var watchdogFD: Int32 = -1
    }
    private static let state = Mutex(State())

    /// Makes this process a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): descendants
    /// whose parent exits are reparented to it. False where that is not available.
    @discardableResult
    public static func adoptOrphans() -> Bool {
        tgp_set_child_subreaper() == 0
    }

    /// Starts the watchdog (once; later calls return true at once): a forked process in its
    /// own session, immune to the terminal's signals, that waits for this process to end. Then,
    /// however it ended, the watchdog sends SIGTERM to every process of this program's
    /// commands (their process groups and every process with this program's mark), SIGKILL to
    /// what is left after `grace` seconds, and exits. False when it cannot start (or off
    /// Linux).
    @discardableResult
    public static func startWatchdog(grace: Double = 1) -> Bool {
        state.withLock { s in
            if s.watchdogPid > 0 { return true }
            var fd: Int32 = -1
            let ms = Int32((min(max(0, grace.isFinite ? grace : 1), 60) * 1000).rounded())
            let pid = tgp_watchdog_start(CommandMarker.sessionPrefix, ms, &fd)
            guard pid > 0 else { return false }
            s.watchdogPid = pid
            s.watchdogFD = fd
            return true
        }
    }

    /// The watchdog's pid (0: none).
    static var watchdogPid: pid_t { state.withLock { $0.watchdogPid } }

    /// Tells the watchdog a command's process group started (`true`) or is gone.
    static func noteGroup(_ pgid: pid_t, started: Bool) {
        state.withLock { s in
            guard s.watchdogFD >= 0, pgid > 1 else { return }
            let line = Array(((started ? "+" : "-") + "\(pgid)\n").utf8)
            _ = line.withUnsafeBytes { write(s.watchdogFD, $0.baseAddress, $0.count) }
        }
    }

    /// Ends every process left by commands: the descendants of this process (the watchdog
    /// excepted) and every process with this program's mark. SIGTERM, then SIGKILL after
    /// `grace` seconds; our zombies are reaped. Blocks until none is left (or 2 s after the
    /// SIGKILL). Call when no command runs any more (at exit): it may collect any child.
    /// Returns how many processes it had to end.
    @discardableResult
    public static func terminateLeftovers(grace: Double) -> Int {
        let me = getpid()
        let watchdog = watchdogPid
        let prefix = CommandMarker.sessionPrefix
        // A process with this program's mark started after this program did: the
        // environment of older ones is not read.
        let born = ProcessTable.entry(me)?.started ?? 0
        var ended = Set<pid_t>()
        var reader = ProcessTable.EnvironmentReader()
        var sweep = Sweep(grace: grace) {
            let all = ProcessTable.all()
            var found = ProcessTable.descendants(of: me, in: all).filter { $0.pid != watchdog }
            let known = Set(found.map(\.pid))
            for e in all
            where !e.zombie && e.pid != me && e.pid != watchdog && e.mayHaveStarted(since: born)
                && !known.contains(e.pid)
            {
                if reader.hasMarker(e.pid, { $0.hasPrefix(prefix) }) { found.append(e) }
            }
            for e in found where !e.zombie { ended.insert(e.pid) }
            return found
        }
        while !sweep.step() { sleepSeconds(0.02) }
        return ended.count
    }

    /// Collects the zombies of process group `pgid` that are our children (reparented to us,
    /// a subreaper, when their parent ended first), the group's leader excepted (the spawner
    /// collects it). A zombie stays in its group until collected.
    static func reapAdopted(group pgid: pid_t) {
        let me = getpid()
        for e in ProcessTable.all() where e.zombie && e.group == pgid && e.parent == me && e.pid != pgid {
            var status: Int32 = 0
            _ = waitpid(e.pid, &status, WNOHANG)
        }
    }

    /// The running processes marked with run `word` (one command's), whose processes all
    /// started at or after `since` (`ProcessTable.ticksNow()`; 0: any time): the environment
    /// of older processes is not read.
    static func marked(_ word: String, since: UInt64 = 0) -> [ProcessTable.Entry] {
        let me = getpid()
        var reader = ProcessTable.EnvironmentReader()
        var out: [ProcessTable.Entry] = []
        ProcessTable.scan { e in
            if !e.zombie && e.pid != me && e.mayHaveStarted(since: since) && reader.hasMarker(e.pid, { $0 == word }) {
                out.append(e)
            }
        }
        return out
    }
}

extension ProcessTeardown {
    /// The environment entry (`TASKGRAPH_COMMAND=…`) that puts a helper process started
    /// outside a command (taskview's ssh forward) under the same guarantees as a command's:
    /// the watchdog ends it when this program is gone, however it ended.
    package static func helperMarkEntry() -> String {
        let inherited = getenv(CommandMarker.variable).map { String(cString: $0) }
        return CommandMarker.variable + "=" + CommandMarker.value(for: CommandMarker.newRun(), inherited: inherited)
    }
}

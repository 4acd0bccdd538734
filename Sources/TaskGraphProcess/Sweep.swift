import TaskGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends a set of processes found again and again by `find`: SIGTERM to each new one, SIGKILL
/// to what is left once `grace` seconds have passed, zombies that are our children reaped.
/// Driven by calling `step()` until it returns true (nothing left, or 2 s after the SIGKILL
/// and still something: a process in uninterruptible sleep, or one we may not signal).
struct Sweep {
    private let find: () -> [ProcessTable.Entry]
    private var signals: SweepSignals

    init(grace: Double, find: @escaping () -> [ProcessTable.Entry]) {
        self.find = find
        signals = SweepSignals(grace: grace)
    }

    /// One round: signals what is new (or what outlived the grace), reaps zombies; true when
    /// nothing is left.
    mutating func step() -> Bool { signals.step(find()) }
}

/// What a sweep signalled and when it escalates; each `step` is given what was found this
/// round (`Sweep` finds it itself, `StraySweeper` in one pass for many runs).
struct SweepSignals: Sendable {
    private var signalled: [pid_t: Int32] = [:]
    private let killAt: Double
    private let giveUpAt: Double

    init(grace: Double) {
        killAt = monotonicSeconds() + max(0, grace)
        giveUpAt = killAt + 2
    }

    /// One round over `found`: signals what is new (or what outlived the grace), reaps
    /// zombies; true when nothing is left.
    mutating func step(_ found: [ProcessTable.Entry]) -> Bool {
        let now = monotonicSeconds()
        let me = getpid()
        let signal = now >= killAt ? SIGKILL : SIGTERM
        var live = 0
        var seen = Set<pid_t>()
        for e in found {
            seen.insert(e.pid)
            if e.zombie {
                Self.reap(e, me)
                continue
            }
            live += 1
            if signalled[e.pid] != signal {
                _ = kill(e.pid, signal)
                signalled[e.pid] = signal
            }
        }
        // Processes no longer found (a marked process that ended has no environment any
        // more): reap them when they are our zombies.
        for pid in signalled.keys where !seen.contains(pid) {
            if let e = ProcessTable.entry(pid), e.zombie { Self.reap(e, me) }
        }
        return live == 0 || now >= giveUpAt
    }

    private static func reap(_ e: ProcessTable.Entry, _ me: pid_t) {
        guard e.parent == me else { return }
        var status: Int32 = 0
        _ = waitpid(e.pid, &status, WNOHANG)
    }
}

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The mark every command's processes carry in their environment, inherited by whatever
/// they start (daemons that leave the process group with `setsid` included):
/// `TASKGRAPH_COMMAND=SESSION:RUN`, where SESSION names this process (pid and a random
/// number) and RUN one command. A value already there (a command that itself runs
/// commands) is kept, ours appended after a space. `ProcessTeardown` and the watchdog find
/// stray processes by it.
enum CommandMarker {
    static let variable = "TASKGRAPH_COMMAND"

    /// This process's session word: `PID-RANDOM`.
    static let session: String = {
        var r = SystemRandomNumberGenerator()
        let n = r.next() & 0xFFFF_FFFF
        return "\(getpid())-" + String(n, radix: 16)
    }()

    private static let runs = Atomic<Int>(0)

    /// A new run's word: `SESSION:N`.
    static func newRun() -> String {
        "\(session):\(runs.add(1, ordering: .relaxed).newValue)"
    }

    /// The prefix every run's word of this session starts with.
    static var sessionPrefix: String { session + ":" }

    /// The variable's value for a command of run `word`, given the value it would inherit.
    static func value(for word: String, inherited: String?) -> String {
        guard let inherited, !inherited.isEmpty else { return word }
        return inherited + " " + word
    }
}

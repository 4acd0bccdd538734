#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a command that exited with status 0 leaves: its status and the tails of its output.
public struct CommandOutput: Sendable, Equatable {
    /// The exit status (0).
    public let status: Int32
    /// The last lines of standard output (at most `CommandOutput.tailBytes` UTF-8 bytes,
    /// whole lines, each ending in a newline).
    public let stdout: String
    /// The last lines of standard error, bounded the same way.
    public let stderr: String

    /// How much of each stream the tails keep.
    public static let tailBytes = 64 * 1024

    /// An output with these fields.
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Why a command failed: a non-zero exit status, a signal, or it could not start.
public struct CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit status; nil when it could not start or was killed by a signal.
    public let status: Int32?
    /// The signal that killed it.
    public let signal: Int32?
    /// `exit status 2: <last stderr line>`, `killed by SIGKILL`, `cannot run: <reason>`.
    public let message: String

    /// An error with these fields (see also `exited`, `killed(by:)`, `cannotRun`).
    public init(status: Int32?, signal: Int32?, message: String) {
        self.status = status
        self.signal = signal
        self.message = message
    }

    /// A non-zero exit: `exit status N: LAST STDERR LINE` (or `exit status N` with no stderr).
    public static func exited(_ status: Int32, lastStderrLine: String?) -> CommandError {
        var m = "exit status \(status)"
        if let line = lastStderrLine, !line.isEmpty { m += ": " + line }
        return CommandError(status: status, signal: nil, message: m)
    }

    /// Killed by a signal: `killed by SIGKILL`.
    public static func killed(by signal: Int32) -> CommandError {
        CommandError(status: nil, signal: signal, message: "killed by " + signalName(signal))
    }

    /// Could not start: `cannot run: REASON`.
    public static func cannotRun(_ reason: String) -> CommandError {
        CommandError(status: nil, signal: nil, message: "cannot run: " + reason)
    }

    /// The message.
    public var description: String { message }
}

private let signalNames: [Int32: String] = {
    var names: [Int32: String] = [
        SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
        SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
        SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
        SIGCHLD: "SIGCHLD", SIGCONT: "SIGCONT", SIGSTOP: "SIGSTOP", SIGTSTP: "SIGTSTP", SIGTTIN: "SIGTTIN",
        SIGTTOU: "SIGTTOU", SIGURG: "SIGURG", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGVTALRM: "SIGVTALRM",
        SIGPROF: "SIGPROF", SIGWINCH: "SIGWINCH", SIGIO: "SIGIO", SIGSYS: "SIGSYS",
    ]
    #if os(Linux)
        names[SIGSTKFLT] = "SIGSTKFLT"
        names[SIGPWR] = "SIGPWR"
    #endif
    return names
}()

/// `SIGTERM` for 15, `signal 40` for one without a name.
func signalName(_ signal: Int32) -> String {
    signalNames[signal] ?? "signal \(signal)"
}

import Glibc

/// How a child process ended.
enum ChildOutcome: Equatable {
    case exited(Int32)
    case signaled(Int32)
    case timedOut
    case failedToStart(Int32)

    var succeeded: Bool { self == .exited(0) }

    var text: String {
        switch self {
        case .exited(0): return "ok"
        case .exited(let code): return "exit \(code)"
        case .signaled(let sig): return "crash (\(signalName(sig)))"
        case .timedOut: return "timeout"
        case .failedToStart(let err): return "spawn error \(err)"
        }
    }
}

private func signalName(_ sig: Int32) -> String {
    switch sig {
    case SIGSEGV: return "SIGSEGV"
    case SIGBUS: return "SIGBUS"
    case SIGILL: return "SIGILL"
    case SIGTRAP: return "SIGTRAP"
    case SIGABRT: return "SIGABRT"
    case SIGKILL: return "SIGKILL"
    default: return "signal \(sig)"
    }
}

/// Runs this same executable with `arguments` in a child process, its output discarded and
/// Swift's crash backtracer off (a stack overflow is an expected result here, not news), and
/// kills it after `timeout` seconds. A crash in the child cannot take the run down.
func runSelf(_ arguments: [String], timeout: Double) -> (outcome: ChildOutcome, seconds: Double) {
    let path = "/proc/self/exe"
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    var envStrings = ["SWIFT_BACKTRACE=enable=no"]
    var e = environ
    while let entry = e.pointee {
        let s = String(cString: entry)
        if !s.hasPrefix("SWIFT_BACKTRACE=") { envStrings.append(s) }
        e += 1
    }
    let envp = envStrings.map { strdup($0) } + [nil]
    defer {
        for p in argv { free(p) }
        for p in envp { free(p) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

    var pid = pid_t()
    let start = now()
    let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
    guard rc == 0 else { return (.failedToStart(rc), 0) }
    var status: Int32 = 0
    while true {
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid { break }
        if r < 0 && errno != EINTR { return (.failedToStart(errno), now() - start) }
        if now() - start > timeout {
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            return (.timedOut, now() - start)
        }
        usleep(2_000)
    }
    let elapsed = now() - start
    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
    let signal = status & 0x7f
    return (signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal), elapsed)
}

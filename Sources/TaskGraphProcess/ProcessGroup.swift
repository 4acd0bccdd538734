#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Signals to a command's process group (its id is the command's pid: the command starts
/// a new session and so leads a new group).
enum ProcessGroup {
    /// Sends `signal` to every process of the group (and to the leader itself, in case it
    /// has not entered its group yet).
    static func signal(_ pgid: pid_t, _ signal: Int32) {
        guard pgid > 1 else { return }
        _ = kill(-pgid, signal)
        _ = kill(pgid, signal)
    }

    /// True while some process (a zombie included) is still in the group.
    static func hasMembers(_ pgid: pid_t) -> Bool {
        guard pgid > 1 else { return false }
        return kill(-pgid, 0) == 0 || errno == EPERM
    }
}

/// Blocks the calling thread (only for waits a caller asked for, such as at exit).
func sleepSeconds(_ s: Double) {
    var want = timespec(tv_sec: Int(s), tv_nsec: Int((s - Double(Int(s))) * 1e9))
    var left = timespec()
    while nanosleep(&want, &left) != 0 && errno == EINTR { want = left }
}

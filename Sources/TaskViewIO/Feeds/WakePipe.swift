import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking, close-on-exec pipe whose reading end a waiting thread polls: writers
/// put one byte in when work appears, the reader empties it before taking the work.
/// Both ends are -1 when no pipe could be made (callers then fall back to timeouts).
final class WakePipe: Sendable {
    let read: Int32
    let write: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]
        }
        read = fds[0]
        write = fds[1]
    }

    deinit {
        if read >= 0 { close(read) }
        if write >= 0 { close(write) }
    }
}

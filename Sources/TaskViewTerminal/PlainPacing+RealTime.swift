import TaskViewCore
import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

extension PlainPacing {
    /// Plain mode against the real clock: `wait` sleeps, `realNow` reads the monotonic
    /// clock; `speed` recorded or simulated seconds per real second.
    package static func realTime(speed: Double) -> PlainPacing {
        PlainPacing(
            speed: speed,
            wait: { s in
                var ts = timespec(tv_sec: Int(s), tv_nsec: Int((s - s.rounded(.down)) * 1e9))
                nanosleep(&ts, nil) // a signal ends it early: the caller looks again
            }, realNow: { DashboardLoop.monotonicSeconds() })
    }
}

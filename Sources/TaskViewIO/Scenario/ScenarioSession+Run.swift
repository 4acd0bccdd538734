import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

extension ScenarioSession {
    /// Runs headless without printing: timer to timer until the root settles (or nothing is
    /// left to run). For tests and benchmarks; taskview's headless mode prints as it goes.
    package func runToEnd() {
        start()
        if let virtual = clock as? VirtualClock {
            while !root.state.isSettled, virtual.runNext() {}
        } else {
            while !root.state.isSettled { sleepBriefly() }
        }
        waitForCommands()
    }
}

/// 10 ms of sleep (waiting for real-time work to settle).
package func sleepBriefly() {
    var ts = timespec(tv_sec: 0, tv_nsec: 10_000_000)
    nanosleep(&ts, nil)
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Seconds of `CLOCK_MONOTONIC`: the one clock reading for timeouts, waits and elapsed time
/// (`MonotonicClock.now`, the spool's waits, the attach server, TaskGraphProcess's sweeps,
/// taskview's dashboard loop). `package`: the other targets use it too.
@inline(__always)
package func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

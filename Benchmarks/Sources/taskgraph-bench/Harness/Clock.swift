import Glibc

/// Monotonic wall time in seconds (CLOCK_MONOTONIC), the only clock the harness reads.
@inline(__always)
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Seconds taken by `body`.
@inline(__always)
func seconds(_ body: () -> Void) -> Double {
    let start = now()
    let cpuStart = threadCPUSeconds()
    let processStart = processCPUSeconds()
    let usageStart = threadUsage()
    body()
    let wall = now() - start
    if ProcessInfoLite.verboseTiming {
        // Wall time well above the thread's CPU time: the thread waited (or was descheduled).
        // System time and page faults: the thread paid for fresh memory.
        // Other threads' CPU time meanwhile: what a recorder's writer, a tracing thread or a
        // server did at the same time (on two cores, it competes with this thread).
        let cpu = threadCPUSeconds() - cpuStart
        let others = processCPUSeconds() - processStart - cpu
        let usage = threadUsage()
        printError(
            "      timed part: \(Report.sig3(wall)) s wall, \(Report.sig3(cpu)) s on this thread's CPU "
                + "(\(Report.sig3(usage.system - usageStart.system)) s system, "
                + "\(usage.minorFaults - usageStart.minorFaults) page faults), "
                + "\(Report.sig3(max(0, others))) s on other threads' CPU\n")
    }
    return wall
}

/// The calling thread's system time (seconds) and minor page faults so far.
func threadUsage() -> (system: Double, minorFaults: Int) {
    var usage = rusage()
    getrusage(__rusage_who_t(1), &usage) // RUSAGE_THREAD (not imported)
    return (Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6, usage.ru_minflt)
}

/// CPU time the calling thread has used (seconds).
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU time all of the process's threads have used (seconds).
func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// An accumulator the workloads write their results into, so the optimizer cannot drop the
/// work and so each run can check it computed the right thing. Used from one thread at a
/// time only (handlers run on the thread that settles), hence the unchecked conformance.
final class Sink: @unchecked Sendable {
    var total = 0
    var count = 0

    @inline(__always) func add(_ value: Int) {
        total &+= value
        count &+= 1
    }
}

/// Stops the run with a clear message when a workload computed the wrong thing: a benchmark
/// that measures broken work is worse than none.
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition {
        printError("taskgraph-bench: wrong result: \(what())\n")
        exit(1)
    }
}

/// Writes `text` to standard error (fd 2; the C `stderr` global is not concurrency-safe).
func printError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

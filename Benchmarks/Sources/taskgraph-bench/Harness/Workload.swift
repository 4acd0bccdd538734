/// Who is measured. GraphTask rows get the target and PASS/MISS; peer rows get the ratio of
/// GraphTask's median to theirs.
enum SubjectKind {
    case graphTask // no observer
    case graphTaskRecorded // with the log recorder attached
    case peer // Swift Concurrency, OpenCombine
    case floor // the minimal mutex-protected future
    case taskView // dashboard and log workloads (TaskViewCore / the recorder)
}

/// What one run's number means and how it is printed.
enum Measure {
    /// Seconds per item (task, link, subtask); printed in µs.
    case perItem
    /// Seconds for the whole run; printed in ms.
    case total
    /// Heap bytes per item.
    case bytesPerItem
    /// Seconds per item, printed as items per second (higher is better).
    case rate(unit: String)
}

/// A GraphTask target: what the README promises, checked against the median.
struct Target {
    let text: String
    let pass: (Double) -> Bool

    /// The median must be below `limit` (seconds, or bytes for `bytesPerItem`).
    static func below(_ limit: Double, _ text: String) -> Target {
        Target(text: text) { $0 < limit }
    }

    /// For `rate`: at least `perSecond` items per second.
    static func atLeast(perSecond: Double, _ text: String) -> Target {
        Target(text: text) { $0 > 0 && 1 / $0 >= perSecond }
    }
}

/// One subject's implementation of a workload. `run(n)` does the work for `n` items and
/// returns the measured value (seconds per item, seconds, or bytes per item, as the
/// workload's `Measure` says), or nil when the subject cannot run it ("n/a").
struct Case {
    let subject: String
    let kind: SubjectKind
    let run: (_ n: Int) -> Double?
    /// Why the case prints "n/a" when `run` returns nil.
    var unavailable: String = "n/a"
}

/// A workload: the same job done by every subject, in interleaved rounds so that noise from
/// the rest of the machine falls on all subjects alike and the ratios hold.
struct Workload {
    let id: String
    let title: String
    let n: Int
    let measure: Measure
    let target: Target?
    let runs: Int
    /// Run each case once at n/10 first, untimed (page faults, lazy metadata, code paging).
    var warmUp = true
    var cases: [Case]
    /// Set for workloads that run in a child process with a time limit (see `ViewSuite`):
    /// returns every run's value, or nil when the child did not finish in time.
    var isolated: (() -> [Double]?)? = nil
    /// What the row says when `isolated` timed out.
    var timeoutNote = ""
}

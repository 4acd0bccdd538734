#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the children dropped by retention add up to (`GraphNode.droppedChildren`), or the
/// finished roots of one name dropped by retention (`Graph.droppedRoots`): counts by outcome
/// and duration statistics.
///
/// The quantiles are the exact nearest-rank quantiles of the dropped durations while at most
/// 64 had a duration; beyond that they come from a fixed-size sketch (log-spaced buckets),
/// within 1 % of the exact ones. `max` is always exact. Children whose start the graph did not keep (those
/// that began before their parent had more than `Retention.maxFinishedChildren` children,
/// when the parent is not a scope, span or service) are counted but have no duration.
public struct ChildSummary: Sendable, Equatable {
    /// Dropped children (or roots) that completed successfully.
    public var succeeded: Int
    /// Dropped children (or roots) that completed with a failure.
    public var failed: Int
    /// Dropped children (or roots) that were cancelled.
    public var cancelled: Int
    /// The median duration of the dropped ones, in seconds; nil when none had a duration.
    public var p50: Double?
    /// The 95th percentile of their durations, in seconds.
    public var p95: Double?
    /// The longest of their durations, in seconds.
    public var max: Double?

    /// A summary with these figures.
    public init(
        succeeded: Int = 0, failed: Int = 0, cancelled: Int = 0, p50: Double? = nil, p95: Double? = nil,
        max: Double? = nil
    ) {
        self.succeeded = succeeded
        self.failed = failed
        self.cancelled = cancelled
        self.p50 = p50
        self.p95 = p95
        self.max = max
    }

    /// How many were dropped.
    public var count: Int { succeeded + failed + cancelled }
}

/// A log-bucketed histogram of durations: constant memory (`bucketCount` counters, made on
/// the first duration), relative error of a quantile at most `(γ - 1) / (γ + 1)` < 1 %.
/// The first `exactLimit` durations are kept too, so small sets have exact quantiles.
struct DurationSketch: Sendable, Equatable {
    /// Up to this many durations, quantiles are exact.
    static let exactLimit = 64
    /// Bucket growth factor γ.
    static let gamma = 1.02
    /// Durations up to this many seconds share bucket 0.
    static let smallest = 1e-6
    /// Buckets: 1 µs to about 10^6 s (longer ones share the last).
    static let bucketCount = 1400
    private static let logGamma = log(gamma)

    private(set) var buckets: [Int] = []
    private(set) var count = 0
    private(set) var max: Double?
    /// The durations while there are at most `exactLimit`; nil beyond.
    private(set) var exact: [Double]? = []

    mutating func add(_ seconds: Double) {
        guard seconds.isFinite else { return }
        let d = Swift.max(0, seconds)
        if buckets.isEmpty { buckets = [Int](repeating: 0, count: Self.bucketCount) }
        buckets[Self.bucket(d)] += 1
        count += 1
        max = Swift.max(max ?? d, d)
        if count <= Self.exactLimit { exact?.append(d) } else if exact != nil { exact = nil }
    }

    mutating func merge(_ other: DurationSketch) {
        guard other.count > 0 else { return }
        if buckets.isEmpty { buckets = [Int](repeating: 0, count: Self.bucketCount) }
        for i in 0..<Self.bucketCount { buckets[i] += other.buckets[i] }
        count += other.count
        max = Swift.max(max ?? 0, other.max ?? 0)
        if count <= Self.exactLimit, let mine = exact, let theirs = other.exact {
            exact = mine + theirs
        } else {
            exact = nil
        }
    }

    static func bucket(_ d: Double) -> Int {
        guard d > smallest else { return 0 }
        let i = Int(ceil(log(d / smallest) / logGamma))
        return Swift.min(Swift.max(i, 1), bucketCount - 1)
    }

    /// The midpoint (in relative error) of bucket `i`: covers (smallest·γ^(i-1), smallest·γ^i].
    static func value(_ i: Int) -> Double {
        i == 0 ? smallest : smallest * pow(gamma, Double(i)) * 2 / (1 + gamma)
    }

    /// The nearest-rank `q`-quantile (0 < q <= 1), at most `max`; nil when empty.
    func quantile(_ q: Double) -> Double? {
        guard count > 0, let max else { return nil }
        let rank = Swift.max(1, Int(ceil(q * Double(count))))
        if let exact, exact.count == count { return exact.sorted()[rank - 1] }
        var seen = 0
        for (i, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= rank { return Swift.min(Self.value(i), max) }
        }
        return max
    }
}

/// What retention dropped under one parent (or of one root name) so far: counts by outcome
/// and the durations' sketch, from which `summary` is made.
struct ChildTally: Sendable {
    var succeeded = 0
    var failed = 0
    var cancelled = 0
    var durations = DurationSketch()

    /// Counts one dropped node: its outcome, and its duration when known.
    mutating func add(state: TaskState, failed isFailed: Bool, duration: Double?) {
        if state == .cancelled {
            cancelled += 1
        } else if isFailed {
            failed += 1
        } else {
            succeeded += 1
        }
        if let duration { durations.add(duration) }
    }

    mutating func merge(_ other: ChildTally) {
        succeeded += other.succeeded
        failed += other.failed
        cancelled += other.cancelled
        durations.merge(other.durations)
    }

    var summary: ChildSummary {
        ChildSummary(
            succeeded: succeeded, failed: failed, cancelled: cancelled, p50: durations.quantile(0.5),
            p95: durations.quantile(0.95), max: durations.max)
    }
}

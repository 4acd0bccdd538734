/// The lifecycle state of a task. States only move forward:
/// `notExecuted -> executing -> completed | cancelled`, or `notExecuted -> cancelled`.
public enum TaskState: String, Sendable, Codable, CaseIterable {
    /// Created, not started yet (tasks are lazy: nothing runs before `execute()`).
    case notExecuted
    /// Started and not settled yet.
    case executing
    /// Settled with a success or a failure (`GraphNode.failed` tells which).
    case completed
    /// Cancelled before it could complete.
    case cancelled

    /// Whether the state is final (`completed` or `cancelled`).
    @inlinable public var isSettled: Bool { self == .completed || self == .cancelled }

    /// Every state, in lifecycle order. Stored: the synthesized `allCases` is computed and
    /// allocates a new array on each call.
    public static let allCases: [TaskState] = [.notExecuted, .executing, .completed, .cancelled]
}

/// A progress report: a fraction in `0...1` and an optional free text such as a phase name.
public struct TaskProgress: Sendable, Equatable, Codable {
    /// The fraction done, clamped to `0...1` (NaN counts as 0).
    public var fraction: Double {
        didSet { fraction = TaskProgress.clamp(fraction) }
    }
    /// Free text describing the current phase, e.g. "Downloading".
    public var info: String?

    /// Creates a report; `fraction` is clamped to `0...1`.
    @inlinable
    public init(_ fraction: Double, info: String? = nil) {
        self.fraction = TaskProgress.clamp(fraction)
        self.info = info
    }

    @inlinable
    static func clamp(_ value: Double) -> Double {
        if !(value > 0) { return 0 } // also catches NaN
        return value < 1 ? value : 1
    }

    /// No progress and no info.
    public static let zero = TaskProgress(0)
}

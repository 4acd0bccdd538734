import TaskGraph

/// What a row shows: the four task states split into what a person cares about.
/// `skipped` is a node that never executed and never will: its parent has settled or is
/// itself skipped (the rest of a failed `sequential`, an unneeded recovery, everything
/// under a cancelled node).
package enum DisplayState: Int, Sendable, CaseIterable {
    case notExecuted, executing, succeeded, failed, cancelled, skipped

    /// The word used in headless lines, summaries and the detail pane.
    package var word: String {
        switch self {
        case .notExecuted: "not executed"
        case .executing: "executing"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .skipped: "skipped"
        }
    }

    /// Whether the node has reached its final state (skipped counts as final).
    package var isFinal: Bool { self != .notExecuted && self != .executing }
}

/// How a root (and so a run) ended.
package enum RootOutcome: Sendable, Equatable {
    case succeeded, failed, cancelled

    /// The exit status taskview uses for it: 0, 1, 130.
    package var exitStatus: Int32 {
        switch self {
        case .succeeded: 0
        case .failed: 1
        case .cancelled: 130
        }
    }

    /// `succeeded`, `failed`, `cancelled`.
    package var word: String {
        switch self {
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}

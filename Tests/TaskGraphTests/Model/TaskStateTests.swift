import TaskGraph
import Testing

/// `TaskState.allCases`: every state once, in lifecycle order, from one stored array.
@Suite struct TaskStateTests {
    /// The position of `state` in lifecycle order; the exhaustive switch makes a new case
    /// fail to compile here until it is placed (and added to `allCases`).
    static func order(_ state: TaskState) -> Int {
        switch state {
        case .notExecuted: 0
        case .executing: 1
        case .completed: 2
        case .cancelled: 3
        }
    }

    @Test func allCasesListsEveryStateOnceInLifecycleOrder() {
        #expect(TaskState.allCases == [.notExecuted, .executing, .completed, .cancelled])
        #expect(TaskState.allCases.enumerated().allSatisfy { Self.order($1) == $0 })
    }

    @Test func allCasesIsOneStoredArrayNotANewOneEachCall() {
        let first = TaskState.allCases
        let second = TaskState.allCases // both alive at once
        let same = first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
        }
        #expect(same)
    }
}

import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// The `end` summary of a graph whose settled root holds a never-executed chain: every
/// node below counts as skipped, found in one pass (it was a walk to the root per node,
/// O(depth²): minutes for 100,000 levels).
@Suite struct SkippedChainTests {
    @Test func aHundredThousandDeepNeverExecutedChainUnderASettledRootIsSkipped() {
        let depth = 100_000
        var model = LogModel()
        for i in 0..<depth {
            model.apply(
                .added(
                    id: NodeID(i), kind: "task", name: "level \(i)", weight: 1,
                    parent: i > 0 ? NodeID(i - 1) : nil, index: i > 0 ? 0 : nil))
        }
        model.apply(.stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil))
        model.apply(.stateChanged(id: NodeID(0), state: .completed, failed: false, message: nil))
        var a = timespec()
        var b = timespec()
        clock_gettime(CLOCK_MONOTONIC, &a)
        let summary = model.summary(duration: 1)
        clock_gettime(CLOCK_MONOTONIC, &b)
        #expect(summary.succeeded == 1)
        #expect(summary.skipped == depth - 1)
        #expect(summary.notExecuted == 0)
        #expect(Double(b.tv_sec - a.tv_sec) < 50)
    }

    @Test func aNeverExecutedChainUnderAnExecutingRootIsNotSkipped() {
        var model = LogModel()
        for i in 0..<4 {
            model.apply(
                .added(
                    id: NodeID(i), kind: "task", name: "n\(i)", weight: 1,
                    parent: i > 0 ? NodeID(i - 1) : nil, index: i > 0 ? 0 : nil))
        }
        model.apply(.stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil))
        model.apply(.stateChanged(id: NodeID(2), state: .cancelled, failed: false, message: nil))
        let summary = model.summary(duration: 1)
        // 0: never executed, a root; 1 executing; 2 cancelled; 3 below a settled node: skipped.
        #expect(summary.notExecuted == 1)
        #expect(summary.executing == 1)
        #expect(summary.cancelled == 1)
        #expect(summary.skipped == 1)
    }
}

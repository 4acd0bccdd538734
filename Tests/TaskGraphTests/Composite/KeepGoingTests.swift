import Testing

@testable import TaskGraph

/// The groups taskview's `-k` and `allowFailure` build (`GraphTask.keepingOn`): a keep-going
/// group runs every child whatever fails and then fails with the first failure; a tolerated
/// child's failure counts as a success; `after` waits for a tolerated prerequisite however it
/// ends.
@Suite struct KeepGoingTests {
    @Test func aKeepGoingSequentialRunsEveryChildThenFailsWithTheFirstFailure() {
        let (g, clock) = virtualGraph()
        let kids = [
            timed(1, after: 1, name: "a", graph: g, fail: true), timed(2, after: 1, name: "b", graph: g),
            timed(3, after: 1, name: "c", graph: g, fail: true),
        ]
        let group = GraphTask.keepingOn(kids, concurrently: false, keepGoing: true, tolerated: [], graph: g) {
            $0.reduce(0, +)
        }.execute()
        clock.runUntilIdle()
        #expect(kids.map { $0.state } == [.completed, .completed, .completed])
        #expect(clock.now == 3) // one after another, past both failures
        #expect(group.state == .completed)
        #expect(group.graph.snapshot()[group.id]?.failed == true)
        #expect(group.graph.snapshot()[group.id]?.message == String(describing: TestError()))
    }

    @Test func aKeepGoingConcurrentCancelsNothing() {
        let (g, clock) = virtualGraph()
        let kids = [timed(1, after: 1, name: "a", graph: g, fail: true), timed(2, after: 3, name: "b", graph: g)]
        let group = GraphTask.keepingOn(kids, concurrently: true, keepGoing: true, tolerated: [], graph: g) {
            $0.reduce(0, +)
        }.execute()
        clock.advance(by: 1)
        #expect(kids[1].state == .executing) // not cancelled by a's failure
        clock.runUntilIdle()
        #expect(val(kids[1]) == 2)
        #expect(group.graph.snapshot()[group.id]?.failed == true)
        #expect(clock.now == 3)
    }

    @Test func aToleratedFailureCountsAsASuccessWithoutKeepGoing() {
        let (g, clock) = virtualGraph()
        let kids = [timed(1, after: 1, name: "lint", graph: g, fail: true), timed(2, after: 1, name: "test", graph: g)]
        let group = GraphTask.keepingOn(kids, concurrently: false, keepGoing: false, tolerated: [0], graph: g) {
            $0.reduce(0, +)
        }.execute()
        clock.runUntilIdle()
        #expect(val(group) == 2) // the successes' values
        // Another failure still stops it.
        let stop = [timed(1, after: 1, graph: g, fail: true), timed(2, after: 1, graph: g)]
        let stopped = GraphTask.keepingOn(stop, concurrently: false, keepGoing: false, tolerated: [1], graph: g) {
            $0.reduce(0, +)
        }.execute()
        clock.runUntilIdle()
        #expect(stopped.graph.snapshot()[stopped.id]?.failed == true)
        #expect(stop[1].state == .notExecuted)
    }

    @Test func afterWaitsForAToleratedPrerequisiteHoweverItEnds() {
        let (g, clock) = virtualGraph()
        let lint = timed(1, after: 1, name: "lint", graph: g, fail: true)
        let fmt = timed(2, after: 1, name: "fmt", graph: g).after([lint], labels: ["lint"], tolerated: [0], name: nil)
        let root = GraphTask.allSettled([lint, fmt], name: "ci", graph: g).execute()
        clock.runUntilIdle()
        #expect(val(fmt) == 2)
        #expect(root.state == .completed)
        #expect(clock.now == 2)
    }
}

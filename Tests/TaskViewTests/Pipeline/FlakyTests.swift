import TaskGraph
import Testing

@testable import TaskViewCore

/// Flaky, not failed (docs/taskview.md, "Flaky nodes"): a step that failed and succeeded with
/// the same inputs in the last 10 runs, or failed and then passed in this run.
@Suite struct FlakyTests {
    static let key = InputKey(definition: "00000000000000aa", commit: String(repeating: "c", count: 40), dirty: false)

    /// A history line of run `i` in which `ci/test` had `outcome` and input `key`.
    static func entry(_ i: Int, _ outcome: String, key: InputKey = Self.key) -> HistoryEntry {
        HistoryEntry(
            run: "r\(i)", start: 1_795_879_433 + Double(i) * 60, seconds: 2, status: outcome == "failed" ? 1 : 0,
            nodes: [
                .init(path: "ci", outcome: outcome, seconds: 2, key: "00000000000000bb"),
                .init(
                    path: "ci/test", outcome: outcome, seconds: 1.5 + Double(i), key: key.definition,
                    commit: key.commit, dirty: key.dirty),
            ])
    }

    /// Ten runs with the same inputs, failed on the 2nd, 5th and 8th.
    static let tenRuns = (0..<10).map { entry($0, [1, 4, 7].contains($0) ? "failed" : "succeeded") }

    static func events(_ changes: [GraphChange]) -> [GraphEvent] {
        changes.enumerated().map {
            GraphEvent(sequence: UInt64($0.offset + 1), time: Double($0.offset), change: $0.element)
        }
    }

    /// `ci` (sequential) running its step `test`.
    static let running: [GraphChange] = [
        .added(id: NodeID(0), kind: "sequential", name: "ci", weight: 1, parent: nil, index: nil),
        .added(id: NodeID(1), kind: "command", name: "test", weight: 1, parent: NodeID(0), index: 0),
        .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil),
        .stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil),
    ]

    @Test func sameInputsBothOutcomesInTheLastTenRunsIsFlakyThreeOfTen() throws {
        let flaky = FlakyHistory(entries: Self.tenRuns, current: ["ci/test": Self.key])
        let v = try #require(flaky.verdict("ci/test"))
        #expect(v.label == "flaky 3/10")
        #expect(v.list.map(\.outcome).filter { $0 == "failed" }.count == 3)
        // The row shows it after its state, while it runs.
        var model = DashboardModel(title: "ci")
        for e in Self.events(Self.running) { model.absorb(e) }
        var history = RunHistory(entries: Self.tenRuns)
        history.flaky = flaky
        model.history = history
        let lines = Renderer(ascii: true).render(model, width: 100, height: 8).grid.lines
        let row = try #require(lines.first { $0.contains("- * test") })
        #expect(row.hasPrefix("`- * test  flaky 3/10                     ....................   0%   0.0s ~6.5s left"))
    }

    @Test func aStepWithNeedsIsFlakyOnItsOneRow() throws {
        // `test` needs something: an `after` adapter drawn in one row with its command.
        var tree = TreeModel()
        tree.absorb(
            Self.events([
                .added(id: NodeID(0), kind: "allSettled", name: "ci", weight: 1, parent: nil, index: nil),
                .added(id: NodeID(1), kind: NodeKind.after, name: "test", weight: 1, parent: NodeID(0), index: 0),
                .added(id: NodeID(2), kind: "command", name: "test", weight: 1, parent: NodeID(1), index: 0),
                .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil),
                .stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil),
                .stateChanged(id: NodeID(2), state: .executing, failed: false, message: nil),
                .stateChanged(id: NodeID(2), state: .completed, failed: false, message: nil),
                .stateChanged(id: NodeID(1), state: .completed, failed: false, message: nil),
            ]))
        let flaky = FlakyHistory(entries: [Self.entry(0, "failed")], current: ["ci/test": Self.key])
        #expect(flaky.verdict(row: 1, in: tree)?.label == "flaky 1/2")
        #expect(flaky.verdict(row: 2, in: tree) == nil) // drawn in its adapter's row
        #expect(RunReport(tree: tree, flaky: flaky).flaky.map(\.path) == ["ci/test"])
    }

    @Test func theDetailPaneListsTheRunsWithTheSameInputsNewestFirst() throws {
        let runs = [Self.entry(0, "succeeded"), Self.entry(1, "failed"), Self.entry(2, "succeeded")]
        var tree = TreeModel()
        tree.absorb(Self.events(Self.running))
        let flaky = FlakyHistory(entries: runs, current: ["ci/test": Self.key])
        #expect(
            flaky.detailLines(row: 1, in: tree) == [
                "Flaky: failed 1 of the last 3 runs with the same inputs:",
                "  2026-11-28 15:25:53  succeeded  3.5s",
                "  2026-11-28 15:24:53  failed  2.5s",
                "  2026-11-28 15:23:53  succeeded  1.5s",
            ])
        #expect(flaky.detailLines(row: 0, in: tree) == nil) // a group fails with its steps
    }

    @Test func differentInputsAreNotFlaky() {
        var other = Self.key
        other.commit = String(repeating: "d", count: 40)
        var dirty = Self.key
        dirty.dirty = true
        var edited = Self.key
        edited.definition = "00000000000000cc"
        for changed in [other, dirty, edited] {
            // Failed with one input key, succeeded with another.
            let runs = (0..<6).map { Self.entry($0, $0 < 3 ? "failed" : "succeeded", key: $0 < 3 ? changed : Self.key) }
            #expect(FlakyHistory(entries: runs, current: ["ci/test": Self.key]).verdict("ci/test") == nil)
            #expect(FlakyHistory(entries: runs, current: ["ci/test": changed]).verdict("ci/test") == nil)
        }
        // Without this run's keys, the newest run's key decides.
        let runs = [Self.entry(0, "failed", key: other), Self.entry(1, "succeeded")]
        #expect(FlakyHistory(entries: runs, current: [:]).verdict("ci/test") == nil)
    }

    @Test func aFailureOutsideTheLastTenRunsDoesNotCount() {
        let eleven = (0..<11).map { Self.entry($0, $0 == 0 ? "failed" : "succeeded") }
        #expect(FlakyHistory(entries: eleven, current: ["ci/test": Self.key]).verdict("ci/test") == nil)
        #expect(FlakyHistory(entries: Array(eleven.suffix(10)), current: [:]).verdict("ci/test") == nil)
        // This run counts as the newest of the ten: the oldest failure drops out.
        let ten = (0..<10).map { Self.entry($0, $0 == 0 ? "failed" : "succeeded") }
        let flaky = FlakyHistory(entries: ten, current: ["ci/test": Self.key])
        #expect(flaky.verdict("ci/test")?.label == "flaky 1/10")
        let now = FlakyHistory.Run(start: 0, outcome: "succeeded", seconds: 1, key: Self.key)
        #expect(flaky.verdict("ci/test", now: now) == nil)
    }

    @Test func thisRunsFailureAgainstPassesWithTheSameInputsIsFlaky() throws {
        let passes = (0..<3).map { Self.entry($0, "succeeded") }
        var tree = TreeModel()
        tree.absorb(
            Self.events(
                Self.running + [
                    .output(id: NodeID(1), stream: .stderr, text: "expected 2, got 3"),
                    .stateChanged(id: NodeID(1), state: .completed, failed: true, message: "exit status 1"),
                    .stateChanged(id: NodeID(0), state: .completed, failed: true, message: "test failed"),
                ]))
        let flaky = FlakyHistory(entries: passes, current: ["ci/test": Self.key])
        #expect(flaky.verdict(row: 1, in: tree)?.label == "flaky 1/4")
        let report = RunReport(tree: tree, flaky: flaky)
        #expect(
            report.flaky == [
                .init(
                    id: 1, path: "ci/test", name: "test", failures: 1, runs: 4, sameRun: false,
                    firstFailureOutput: ["expected 2, got 3"])
            ])
        #expect(report.lines.contains("  ci/test  flaky 1/4: failed 1 of the last 4 runs with the same inputs"))
        #expect(RunReport(tree: tree).flaky == []) // no history: one failure is just a failure
    }

    /// `ci` whose step `test` failed (writing two lines), then was restarted and passed.
    static let restarted: [GraphChange] =
        running + [
            .output(id: NodeID(1), stream: .stdout, text: "ran 5 tests"),
            .output(id: NodeID(1), stream: .stderr, text: "test_io: timed out"),
            .stateChanged(id: NodeID(1), state: .completed, failed: true, message: "exit status 1"),
            .stateChanged(id: NodeID(0), state: .completed, failed: true, message: "test failed"),
            .added(id: NodeID(2), kind: "allSettled", name: "restart", weight: 1, parent: nil, index: nil),
            .added(id: NodeID(3), kind: "command", name: "test", weight: 1, parent: NodeID(2), index: 0),
            .attempt(id: NodeID(3), of: NodeID(1)),
            .stateChanged(id: NodeID(2), state: .executing, failed: false, message: nil),
            .stateChanged(id: NodeID(3), state: .executing, failed: false, message: nil),
            .output(id: NodeID(3), stream: .stdout, text: "ran 5 tests, all passed"),
            .stateChanged(id: NodeID(3), state: .completed, failed: false, message: nil),
            .stateChanged(id: NodeID(2), state: .completed, failed: false, message: nil),
        ]

    @Test func restartedThenPassedInOneRunIsFlakyAndKeepsTheFirstFailuresOutput() {
        var tree = TreeModel()
        tree.absorb(Self.events(Self.restarted))
        let report = RunReport(tree: tree)
        #expect(report.firstFailure == nil)
        #expect(
            report.flaky == [
                .init(
                    id: 1, path: "ci/test", name: "test", failures: 1, runs: 2, sameRun: true,
                    firstFailureOutput: ["ran 5 tests", "test_io: timed out"])
            ])
        let block = Array(report.lines.drop { !$0.hasPrefix("Flaky") }.prefix(5))
        #expect(
            block == [
                "Flaky: 1",
                "  ci/test  failed 1 of 2 attempts in this run",
                "    first failure's output:",
                "    | ran 5 tests",
                "    | test_io: timed out",
            ])
        #expect(
            report.json.contains(
                #""flaky":[{"path":"ci/test","name":"test","failures":1,"runs":2,"sameRun":true,"#
                    + #""firstFailureOutput":["ran 5 tests","test_io: timed out"]}]"#))
        // Its history says the same run: one entry, this run's.
        let flaky = FlakyHistory(entries: [Self.entry(0, "failed"), Self.entry(1, "succeeded")], current: [:])
        #expect(RunReport(tree: tree, flaky: flaky).flaky.map(\.sameRun) == [true])
    }

    @Test func aRetryThatPassedAfterAFailureIsFlaky() {
        var tree = TreeModel()
        tree.absorb(
            Self.events([
                .added(id: NodeID(0), kind: NodeKind.retry, name: "upload", weight: 1, parent: nil, index: nil),
                .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil),
                .added(id: NodeID(1), kind: "command", name: "put", weight: 1, parent: NodeID(0), index: 0),
                .stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil),
                .output(id: NodeID(1), stream: .stderr, text: "503"),
                .stateChanged(id: NodeID(1), state: .completed, failed: true, message: "exit status 22"),
                .added(id: NodeID(2), kind: "command", name: "put", weight: 1, parent: NodeID(0), index: 1),
                .stateChanged(id: NodeID(2), state: .executing, failed: false, message: nil),
                .stateChanged(id: NodeID(2), state: .completed, failed: false, message: nil),
                .stateChanged(id: NodeID(0), state: .completed, failed: false, message: nil),
            ]))
        #expect(
            RunReport(tree: tree).flaky == [
                .init(
                    id: 0, path: "upload", name: "upload", failures: 1, runs: 2, sameRun: true,
                    firstFailureOutput: ["503"])
            ])
    }
}

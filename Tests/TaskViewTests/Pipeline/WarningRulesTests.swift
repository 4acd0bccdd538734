import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// taskview's `slow` and `silent` rules (docs/taskview.md, "Warnings"), on trees fed by hand at
/// known times: when each begins, its exact text, and when it ends.
@Suite struct WarningRulesTests {
    /// `ci` (sequential) > `build` (a command), started at t=0.
    static func run() -> EventScript {
        var s = EventScript()
        s.add(0, "ci", kind: "sequential")
        s.add(1, "build", kind: NodeKind.command, parent: 0)
        s.start(0)
        s.start(1)
        return s
    }

    static func tree(_ s: EventScript) -> TreeModel {
        var t = TreeModel()
        t.absorb(s.events)
        return t
    }

    static let history = RunHistory(expected: ["ci/build": 12], runCount: 3)

    @Test func slowBeginsPastThreeTimesTheMedianAndTenSecondsMoreAndEndsWithTheNode() {
        var rules = WarningRules(history: Self.history)
        var s = Self.run()
        var tree = Self.tree(s)
        #expect(rules.check(tree, now: 36).isEmpty) // 3× 12 s: not past it yet
        let slow = rules.check(tree, now: 40.8)
        #expect(slow == [WarningChange(id: 1, rule: WarningRule.slow, text: "slow: 3.4× its usual 12s")])
        #expect(rules.check(tree, now: 41.8).isEmpty) // once
        _ = s.at(42)
        s.succeed(1)
        tree = Self.tree(s)
        #expect(rules.check(tree, now: 42) == [WarningChange(id: 1, rule: WarningRule.slow, text: nil)])
    }

    @Test func slowNeedsTenSecondsMoreThanTheMedianNotOnlyThreeTimesIt() {
        var rules = WarningRules(history: RunHistory(expected: ["ci/build": 2], runCount: 3))
        let tree = Self.tree(Self.run())
        #expect(rules.check(tree, now: 11.9).isEmpty) // 5.95× 2 s, but only 9.9 s longer
        #expect(rules.check(tree, now: 12).map(\.text) == ["slow: 6.0× its usual 2s"])
    }

    @Test func withoutHistoryNothingIsSlow() {
        var rules = WarningRules()
        let tree = Self.tree(Self.run())
        #expect(rules.check(tree, now: 3_000).allSatisfy { $0.rule != WarningRule.slow })
    }

    @Test func thresholdsAreOptions() {
        var rules = WarningRules(thresholds: WarningThresholds(slowFactor: 1.5, slowAfter: 1), history: Self.history)
        let tree = Self.tree(Self.run())
        #expect(rules.check(tree, now: 18).isEmpty)
        #expect(rules.check(tree, now: 18.1).map(\.text) == ["slow: 1.5× its usual 12s"])
    }

    @Test func silentAfterSixtySecondsWithoutHistoryClearedByOutput() {
        var rules = WarningRules()
        var s = Self.run()
        var tree = Self.tree(s)
        #expect(rules.check(tree, now: 59).isEmpty)
        #expect(
            rules.check(tree, now: 60) == [WarningChange(id: 1, rule: WarningRule.silent, text: "no output for 1m")])
        _ = s.at(61)
        s.emit(.output(id: NodeID(1), stream: .stdout, text: "still here"))
        tree = Self.tree(s)
        #expect(rules.check(tree, now: 61.5) == [WarningChange(id: 1, rule: WarningRule.silent, text: nil)])
        #expect(rules.check(tree, now: 121).isEmpty) // 59.5 s since the output
        #expect(rules.check(tree, now: 121.5).map(\.text) == ["no output for 1m"])
    }

    @Test func silentUsesFiveTimesTheUsualLongestGapAtLeastThirtySeconds() {
        var history = RunHistory(expected: [:], runCount: 3)
        history.gaps = ["ci/build": 20]
        var rules = WarningRules(history: history)
        let tree = Self.tree(Self.run())
        #expect(rules.check(tree, now: 99).isEmpty)
        #expect(rules.check(tree, now: 100).map(\.text) == ["no output for 1m40s"])
        history.gaps = ["ci/build": 2] // 5× 2 s = 10 s: at least 30 s
        var short = WarningRules(history: history)
        #expect(short.check(tree, now: 29).isEmpty)
        #expect(short.check(tree, now: 30).map(\.text) == ["no output for 30s"])
    }

    @Test func silentAfterOverridesAndProgressCountsAsActivity() {
        var rules = WarningRules(thresholds: WarningThresholds(silentAfter: 5))
        var s = Self.run()
        _ = s.at(4)
        s.progress(1, 0.5, "half")
        let tree = Self.tree(s)
        #expect(rules.check(tree, now: 4).isEmpty) // the progress is seen at this check
        #expect(rules.check(tree, now: 8.9).isEmpty)
        #expect(rules.check(tree, now: 9).map(\.text) == ["no output for 5s"])
    }

    @Test func theLongestGapGoesToTheHistoryByPath() {
        var rules = WarningRules()
        var s = Self.run()
        var tree = Self.tree(s)
        _ = rules.check(tree, now: 1)
        _ = s.at(7)
        s.emit(.output(id: NodeID(1), stream: .stdout, text: "x"))
        tree = Self.tree(s)
        _ = rules.check(tree, now: 7)
        _ = s.at(9)
        s.succeed(1)
        tree = Self.tree(s)
        _ = rules.check(tree, now: 9)
        #expect(rules.longestGaps(in: tree) == ["ci/build": 7])
        let entry = HistoryEntry(
            tree: tree, root: 0, run: "r", start: 0, status: 0, keys: [:], gaps: rules.longestGaps(in: tree))
        #expect(entry.line.contains(#"{"path":"ci/build","outcome":"succeeded","seconds":9,"attempts":1,"gap":7}"#))
        #expect(HistoryEntry(line: Array(entry.line.utf8))?.nodes.last?.gap == 7)
    }

    @Test func theUsualGapIsTheMedianOfEarlierRuns() {
        let entries = [2.0, 10, 4].map { g in
            var n = HistoryEntry.Node(path: "ci/build", outcome: "failed", seconds: 1)
            n.gap = g
            return HistoryEntry(run: nil, start: 0, seconds: 1, status: 1, nodes: [n])
        }
        #expect(RunHistory(entries: entries).gaps == ["ci/build": 4])
    }
}

import Synchronization
import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// `taskview run`'s exit status (docs/taskview.md "Exit status"): 1 when the newest attempt
/// of a step failed or was skipped because something it needed failed, whatever the root's
/// kind, unless the step says `allowFailure`; `-k` runs every step that does not need a
/// failed one. Headless, on a virtual clock.
@Suite struct ExitStatusTests {
    enum Case: String, CaseIterable, Sendable {
        /// `test` fails.
        case failing
        /// `test` fails with `"allowFailure": true`.
        case allowed
        /// `build` fails, so `test` (which needs it) is skipped.
        case skipped
    }

    /// The three steps: `build`; `test`, which needs it; `docs`, longer, independent. In a
    /// `retry` (where `needs` cannot point) `test` follows `build` in a `sequential` instead.
    static func steps(_ c: Case, inRetry: Bool = false) -> String {
        let buildFails = c == .skipped ? #", "fail": true"# : ""
        let testFails =
            switch c {
            case .failing: #", "fail": true"#
            case .allowed: #", "fail": true, "allowFailure": true"#
            case .skipped: ""
            }
        let build = #"{"kind": "work", "name": "build", "duration": 1, "steps": 0\#(buildFails)"#
        let test = #"{"kind": "work", "name": "test", "duration": 1, "steps": 0\#(testFails)"#
        let docs = #"{"kind": "work", "name": "docs", "duration": 3, "steps": 0}"#
        if inRetry {
            return #"{"kind": "sequential", "name": "build and test", "children": [\#(build)}, \#(test)}]}, "# + docs
        }
        return build + #", "id": "build"}, "# + test + #", "needs": ["build"]}, "# + docs
    }

    /// A scenario whose root is of `kind`: a group holds the steps itself; `then`, `recover`,
    /// `retry` and `timeout` hold them in an `allSettled` (which never fails in the graph).
    static func scenario(_ kind: String, _ c: Case) -> String {
        let group = #"{"kind": "allSettled", "name": "steps", "children": [\#(steps(c, inRetry: kind == "retry"))]}"#
        return switch kind {
        case "then", "recover":
            #"{"kind": "\#(kind)", "name": "ci", "children": [\#(group), "#
                + #"{"kind": "work", "name": "final", "duration": 1, "steps": 0}]}"#
        case "retry": #"{"kind": "retry", "name": "ci", "attempts": 1, "children": [\#(group)]}"#
        case "timeout": #"{"kind": "timeout", "name": "ci", "seconds": 100, "children": [\#(group)]}"#
        default: #"{"kind": "\#(kind)", "name": "ci", "children": [\#(steps(c))]}"#
        }
    }

    /// Runs `text` headless; the exit status, the steps that ran (succeeded or failed) and
    /// the verdict, from the events a view sees.
    static func run(_ text: String, keepGoing: Bool) throws -> (status: Int32, ran: Set<String>, verdict: RunVerdict) {
        let s = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: s, seed: 1, keepGoing: keepGoing)
        let seen = Mutex<[GraphEvent]>([])
        let (snapshot, observation) = session.graph.snapshotAndObserve { e in seen.withLock { $0.append(e) } }
        defer { observation.cancel() }
        let outcome = HeadlessRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID, print: { _ in },
            start: { session.start() })
        var tree = TreeModel(snapshot: snapshot)
        tree.absorb(seen.withLock { $0 })
        var ran = Set<String>()
        for id in 0..<tree.nodes.count where tree.contains(id) && tree[id].kind == NodeKind.task {
            if tree[id].state == .completed { ran.insert(tree[id].name) }
        }
        return (outcome.exitStatus, ran, RunVerdict(tree: tree, root: session.rootID.rawValue))
    }

    /// Root kind, case, `-k`: exit status and the steps that ran.
    static let table: [(kind: String, case: Case, keepGoing: Bool, status: Int32, ran: Set<String>)] = [
        ("sequential", .failing, false, 1, ["build", "test"]),
        ("sequential", .failing, true, 1, ["build", "test", "docs"]),
        ("sequential", .allowed, false, 0, ["build", "test", "docs"]),
        ("sequential", .allowed, true, 0, ["build", "test", "docs"]),
        ("sequential", .skipped, false, 1, ["build"]),
        ("sequential", .skipped, true, 1, ["build", "docs"]),
        ("concurrent", .failing, false, 1, ["build", "test"]), // docs cancelled: fail fast
        ("concurrent", .failing, true, 1, ["build", "test", "docs"]),
        ("concurrent", .allowed, false, 0, ["build", "test", "docs"]),
        ("concurrent", .allowed, true, 0, ["build", "test", "docs"]),
        ("concurrent", .skipped, false, 1, ["build"]),
        ("concurrent", .skipped, true, 1, ["build", "docs"]),
        ("allSettled", .failing, false, 1, ["build", "test", "docs"]),
        ("allSettled", .failing, true, 1, ["build", "test", "docs"]),
        ("allSettled", .allowed, false, 0, ["build", "test", "docs"]),
        ("allSettled", .allowed, true, 0, ["build", "test", "docs"]),
        ("allSettled", .skipped, false, 1, ["build", "docs"]),
        ("allSettled", .skipped, true, 1, ["build", "docs"]),
        ("then", .failing, false, 1, ["build", "test", "docs", "final"]),
        ("then", .failing, true, 1, ["build", "test", "docs", "final"]),
        ("then", .allowed, false, 0, ["build", "test", "docs", "final"]),
        ("then", .allowed, true, 0, ["build", "test", "docs", "final"]),
        ("then", .skipped, false, 1, ["build", "docs", "final"]),
        ("then", .skipped, true, 1, ["build", "docs", "final"]),
        ("recover", .failing, false, 1, ["build", "test", "docs"]),
        ("recover", .failing, true, 1, ["build", "test", "docs"]),
        ("recover", .allowed, false, 0, ["build", "test", "docs"]),
        ("recover", .allowed, true, 0, ["build", "test", "docs"]),
        ("recover", .skipped, false, 1, ["build", "docs"]),
        ("recover", .skipped, true, 1, ["build", "docs"]),
        ("retry", .failing, false, 1, ["build", "test", "docs"]),
        ("retry", .failing, true, 1, ["build", "test", "docs"]),
        ("retry", .allowed, false, 0, ["build", "test", "docs"]),
        ("retry", .allowed, true, 0, ["build", "test", "docs"]),
        ("retry", .skipped, false, 1, ["build", "docs"]), // test: the rest of a failed sequential
        ("retry", .skipped, true, 1, ["build", "test", "docs"]), // -k: the sequential goes on
        ("timeout", .failing, false, 1, ["build", "test", "docs"]),
        ("timeout", .failing, true, 1, ["build", "test", "docs"]),
        ("timeout", .allowed, false, 0, ["build", "test", "docs"]),
        ("timeout", .allowed, true, 0, ["build", "test", "docs"]),
        ("timeout", .skipped, false, 1, ["build", "docs"]),
        ("timeout", .skipped, true, 1, ["build", "docs"]),
    ]

    @Test func everyRootKindEveryCaseWithAndWithoutKeepGoing() throws {
        // Every kind of node that can be a root is in the table, each case with and without -k.
        let kinds = Set(ScenarioNode.Kind.allCases.map(\.rawValue)).subtracting(["work", "command"])
        #expect(Set(Self.table.map(\.kind)) == kinds)
        #expect(Self.table.count == kinds.count * Case.allCases.count * 2)
        for row in Self.table {
            let (status, ran, verdict) = try Self.run(Self.scenario(row.kind, row.case), keepGoing: row.keepGoing)
            let label = "\(row.kind) \(row.case)\(row.keepGoing ? " -k" : "")"
            #expect(status == row.status, "\(label): exit status")
            #expect(ran == row.ran, "\(label): steps that ran")
            #expect(verdict.allowed.count == (row.case == .allowed ? 1 : 0), "\(label): allowed")
        }
    }

    @Test func anAllowedFailureLetsItsGroupAndDependentsGoOnAndIsCountedApart() throws {
        let text = """
            {"kind": "concurrent", "name": "ci", "children": [
              {"kind": "work", "name": "lint", "id": "lint", "duration": 1, "steps": 0, "fail": true,
               "allowFailure": true},
              {"kind": "work", "name": "fmt", "needs": ["lint"], "duration": 1, "steps": 0},
              {"kind": "work", "name": "docs", "duration": 3, "steps": 0}
            ]}
            """
        let (status, ran, verdict) = try Self.run(text, keepGoing: false)
        #expect(status == 0)
        #expect(ran == ["lint", "fmt", "docs"])
        #expect(verdict.outcome == .succeeded)
        #expect(verdict.failing.isEmpty)
        #expect(verdict.allowed.count == 1)
    }

    @Test func anAllowedFailureIsShownAsAllowedInLinesRowsAndReport() throws {
        let text = """
            {"kind": "sequential", "name": "ci", "children": [
              {"kind": "work", "name": "lint", "duration": 1, "steps": 0, "fail": true, "allowFailure": true,
               "message": "3 warnings"},
              {"kind": "work", "name": "test", "duration": 1, "steps": 0}
            ]}
            """
        let s = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: s, seed: 1)
        var lines: [String] = []
        let outcome = HeadlessRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID, print: { lines.append($0) },
            start: { session.start() })
        #expect(outcome == .succeeded)
        #expect(lines.contains("[1.000] #0 lint: failed: 3 warnings (allowed)"))
        #expect(lines.contains("|- #0 lint: failed: 3 warnings (allowed)"))
        #expect(lines.contains("First failure: none"))
        #expect(lines.contains("Allowed failures: 1 (lint)"))
        // The dashboard's row: the failure glyph, then `allowed:` before the message.
        var run = try RestartTests.Run(text, seed: 1)
        run.toEnd()
        #expect(run.model.outcome == .succeeded)
        let rows = Renderer(ascii: true).render(run.model, width: 120, height: 8).grid.lines
        #expect(rows.contains { $0.contains("X lint") && $0.hasSuffix("allowed: 3 warnings") }, "\(rows)")
        #expect(rows[0].contains("finished: succeeded") && rows[0].contains("X 1 (1 allowed)"), "\(rows[0])")
    }

    @Test func aRecoveredOrRetriedFailureDoesNotFailTheRun() throws {
        let recovered = """
            {"kind": "recover", "name": "ci", "children": [
              {"kind": "work", "name": "fast", "duration": 1, "steps": 0, "fail": true},
              {"kind": "work", "name": "slow", "duration": 2, "steps": 0}
            ]}
            """
        #expect(try Self.run(recovered, keepGoing: false).status == 0)
        let timedOut = """
            {"kind": "allSettled", "name": "ci", "children": [
              {"kind": "timeout", "name": "bounded", "seconds": 1, "children": [
                {"kind": "work", "name": "slow", "duration": 5, "steps": 0}]},
              {"kind": "work", "name": "docs", "duration": 2, "steps": 0}
            ]}
            """
        let (status, ran, verdict) = try Self.run(timedOut, keepGoing: false)
        #expect(status == 1)
        #expect(ran == ["docs"])
        #expect(verdict.failing.count == 1)
    }
}

import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// Restart (docs/taskview.md "Restart"): `r`/`R` on a settled node re-runs it as a new attempt
/// in place, then the nodes skipped because of it; the outcome follows the newest attempts.
@Suite struct RestartTests {
    /// A seed for which the `work` leaf at `path` with failProbability 0.5 fails on its first
    /// run and succeeds on its first restart (attempt numbers 0 and 1000).
    static func seed(path: String) -> UInt64 { seed(path: path, failing: 1) }

    /// A seed for which that leaf fails its first `failing` runs (the first run, then the
    /// restarts' attempts 1000, 2000, ...) and succeeds on the next.
    static func seed(path: String, failing: Int) -> UInt64 {
        for s in UInt64(1)...100_000 {
            func fails(_ k: Int) -> Bool {
                var g = SplitMix64(seed: s, path: path, attempt: 1000 * k)
                return g.nextUnit() < 0.5
            }
            if (0..<failing).allSatisfy(fails), !fails(failing) { return s }
        }
        fatalError("no seed")
    }

    /// The rows as drawn (ASCII, 80 columns).
    func rows(_ run: Run, height: Int = 12) -> [String] {
        Renderer(ascii: true).render(run.model, width: 80, height: height).grid.lines
    }

    struct Run {
        let session: ScenarioSession
        let source: LiveGraphSource
        var model: DashboardModel
        var elapsed = 0.0

        init(_ text: String, seed: UInt64, recordTo: String? = nil) throws {
            let s = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
            session = try ScenarioSession(scenario: s, seed: seed, recordTo: recordTo)
            let session = self.session
            source = LiveGraphSource(
                graph: session.graph, clock: session.clock, root: session.rootID, title: "s", speed: 1
            ) { session.start() }
            source.needs = session.needs
            source.restarter = ScenarioRestarter(session: session)
            model = DashboardModel(title: "s")
            source.start(model: &model)
        }

        /// Ticks (one virtual second at a time) until the run has an outcome.
        mutating func toEnd() {
            var n = 0
            while model.outcome == nil, n < 1000 {
                elapsed += 1
                _ = source.tick(realElapsed: elapsed, model: &model)
                n += 1
            }
        }

        /// The row named `name`.
        func row(_ name: String) -> RowIndex {
            let d = model.displayTree()
            var r = d.first()
            while let x = r {
                if model.tree[d.content(x)].name == name { return x }
                r = d.next(x)
            }
            return .none
        }

        func shown(_ name: String) -> TreeModel.Node { model.tree.nodes[model.tree.shownNode(row(name))] }

        mutating func key(_ c: Character) {
            for e in Reducer.reduce(&model, key: .char(c), rows: 20) { source.perform(e, key: .char(c), model: &model) }
        }
    }

    static let ci = """
        {"kind": "allSettled", "name": "ci", "children": [
          {"kind": "work", "name": "build", "id": "build", "duration": 1, "steps": 0},
          {"kind": "work", "name": "flaky", "id": "flaky", "needs": ["build"], "duration": 2, "steps": 0,
           "failProbability": 0.5},
          {"kind": "work", "name": "package", "id": "package", "needs": ["flaky"], "duration": 1, "steps": 0},
          {"kind": "work", "name": "upload", "needs": ["package"], "duration": 1, "steps": 0}
        ]}
        """

    @Test func restartingAFailedStepRunsItAgainAndThenItsSkippedDependents() throws {
        // flaky's receiver is at 0.1.0 (its after node is 0.1).
        var run = try Run(Self.ci, seed: Self.seed(path: "0.1"))
        run.toEnd()
        #expect(run.shown("flaky").display == .failed)
        #expect(run.shown("package").display == .skipped)
        #expect(run.shown("upload").display == .skipped)
        run.model.view.selection = run.row("flaky")
        run.key("r")
        #expect(run.model.view.mode == .confirmRestart(row: run.row("flaky"), dependents: 2))
        let frame = Renderer(ascii: true).render(run.model, width: 80, height: 10).grid.lines
        #expect(
            frame.last?.hasPrefix("Restart flaky (and 2 nodes that need it)? [y/N, a: also the 1 step it needs]")
                == true)
        run.key("y")
        #expect(run.model.view.message == "Restarted flaky and 2 nodes that need it")
        #expect(run.model.outcome == nil) // live again
        #expect(run.shown("flaky").display == .executing)
        #expect(run.shown("package").display == .executing) // waiting for flaky's new attempt
        #expect(run.shown("package").info == "waiting for flaky")
        // The root (an allSettled that had completed) shows the work done now, not 100 %:
        // build done, flaky, package and upload to do again: 1 of 4.
        run.model.updateOutcome()
        #expect(run.model.tree.overallProgress == 0.25)
        let drawn = rows(run)
        #expect(drawn[0].hasSuffix(" 25%"), "\(drawn[0])")
        #expect(drawn.contains { $0.contains(" ci ") && $0.contains(" 25%") }, "\(drawn)")
        let rows = Renderer(ascii: true).render(run.model, width: 80, height: 10).grid.lines
        #expect(rows.contains { $0.contains("flaky  attempt 2") })
        run.toEnd()
        #expect(run.shown("flaky").display == .succeeded)
        #expect(run.shown("package").display == .succeeded)
        #expect(run.shown("upload").display == .succeeded)
        #expect(run.model.outcome == .succeeded)
        // The detail pane lists both attempts; the rows keep their places.
        let d = run.model.displayTree()
        let detail = Renderer(ascii: true).detailLines(run.model.tree, d, row: run.row("flaky"))
        #expect(detail.contains("Attempts: 1 failed 2.0s, 2 succeeded 2.0s"))
        #expect(d.first() == RowIndex(run.session.rootID.rawValue))
        #expect(run.model.tree.hiddenRoots.count == 1)
    }

    @Test func aAtTheQuestionRunsWhatTheStepNeedsAgainFirst() throws {
        // "Fix the code, re-run the test": build runs again, then flaky, then what needs it.
        var run = try Run(Self.ci, seed: Self.seed(path: "0.1"))
        run.toEnd()
        #expect(run.model.outcome == .failed) // an allSettled root: flaky failed
        let buildBefore = run.model.tree.shownNode(run.row("build"))
        run.model.view.selection = run.row("flaky")
        run.key("r")
        let frame = Renderer(ascii: true).render(run.model, width: 100, height: 10).grid.lines
        #expect(
            frame.last?.hasPrefix("Restart flaky (and 2 nodes that need it)? [y/N, a: also the 1 step it needs]")
                == true)
        run.key("a")
        #expect(run.model.view.message == "Restarted flaky and 2 nodes that need it after the 1 step it needs")
        #expect(run.model.tree.shownNode(run.row("build")) != buildBefore) // a new attempt of build
        #expect(run.shown("build").display == .executing)
        #expect(run.shown("flaky").info == "waiting for build")
        run.toEnd()
        for name in ["build", "flaky", "package", "upload"] { #expect(run.shown(name).display == .succeeded) }
        let d = run.model.displayTree()
        let detail = Renderer(ascii: true).detailLines(run.model.tree, d, row: run.row("build"))
        #expect(detail.contains("Attempts: 1 succeeded 1.0s, 2 succeeded 1.0s"))
        #expect(run.model.outcome == .succeeded)
    }

    @Test func quittingWhileARestartRunsIsCancelledAndSoIsItsReplay() throws {
        let path = temporaryLogPath("restart-quit")
        defer { unlink(path) }
        let text = """
            {"kind": "allSettled", "name": "ci", "children": [
              {"kind": "work", "name": "build", "duration": 1, "steps": 0},
              {"kind": "work", "name": "test", "duration": 5, "steps": 0}
            ]}
            """
        var run = try Run(text, seed: 1, recordTo: path)
        run.toEnd()
        #expect(run.model.outcome == .succeeded)
        run.model.view.selection = run.row("test")
        run.key("R")
        run.elapsed += 1
        _ = run.source.tick(realElapsed: run.elapsed, model: &run.model)
        #expect(run.shown("test").display == .executing)
        run.source.finish(source: ViewerCancelSource.quit, model: &run.model)
        #expect(run.model.outcome == .cancelled)
        #expect(run.model.outcome?.exitStatus == 130)
        run.session.finishRecording()
        let log = try LogReader.load(path: path)
        #expect(ReplaySource.restartedOutcome(log) == .cancelled) // what replay's exit status is
    }

    @Test func theOutcomeAndExitStatusFollowTheNewestAttempts() throws {
        let text = """
            {"kind": "sequential", "name": "ci", "children": [
              {"kind": "work", "name": "build", "duration": 1, "steps": 0},
              {"kind": "work", "name": "flaky", "duration": 2, "steps": 0, "failProbability": 0.5}
            ]}
            """
        var run = try Run(text, seed: Self.seed(path: "0.1"))
        run.toEnd()
        #expect(run.model.outcome == .failed)
        #expect(run.model.outcome?.exitStatus == 1)
        run.model.view.selection = run.row("flaky")
        run.key("R") // no question
        #expect(run.model.outcome == nil)
        run.toEnd()
        #expect(run.model.outcome == .succeeded)
        #expect(run.model.outcome?.exitStatus == 0)
    }

    @Test func runningAndUnrestartableNodesAreRefusedClearly() throws {
        var run = try Run(Self.ci, seed: Self.seed(path: "0.1"))
        run.elapsed = 0.5
        _ = run.source.tick(realElapsed: 0.5, model: &run.model)
        run.model.view.selection = run.row("build")
        run.key("r")
        #expect(run.model.view.message == "build is running: it cannot be restarted (cancel it first with x)")
        run.model.view.selection = run.row("package")
        run.key("r")
        #expect(run.model.view.message == "package has not run yet: nothing to restart")
        run.toEnd()
        // build succeeded; package and upload were skipped because of flaky, not of build.
        #expect(run.shown("flaky").display == .failed)
        #expect(run.shown("package").display == .skipped)
        run.model.view.selection = run.row("build")
        run.key("r")
        #expect(run.model.view.mode == .confirmRestart(row: run.row("build"), dependents: 0))
        run.key("n")
        #expect(run.model.view.message == "Not restarted")
        run.model.canRestart = false // a graph without remakes
        run.model.view.selection = run.row("build")
        run.key("r")
        #expect(run.model.view.message == "cannot restart: build was not made restartable")
        run.model.view.selection = run.row("build")
        run.key("r")
        #expect(run.model.view.mode == .normal)
    }

    // MARK: The rest of a sequential (issue 32, item 4)

    static let sequence = """
        {"kind": "sequential", "name": "ci", "children": [
          {"kind": "work", "name": "build", "duration": 1, "steps": 0},
          {"kind": "work", "name": "flaky", "duration": 2, "steps": 0, "failProbability": 0.5},
          {"kind": "work", "name": "package", "duration": 1, "steps": 0},
          {"kind": "sequential", "name": "ship", "children": [
            {"kind": "work", "name": "upload", "duration": 1, "steps": 0}
          ]}
        ]}
        """

    @Test func restartingAFailedStepOfASequentialRunsTheStepsThatNeverRan() throws {
        var run = try Run(Self.sequence, seed: Self.seed(path: "0.1"))
        run.toEnd()
        #expect(run.shown("flaky").display == .failed)
        #expect(run.shown("package").display == .skipped)
        #expect(run.shown("upload").display == .skipped)
        #expect(run.model.outcome == .failed)
        run.model.view.selection = run.row("flaky")
        run.key("r")
        // package and ship (with upload) come after it.
        #expect(run.model.view.mode == .confirmRestart(row: run.row("flaky"), dependents: 2))
        run.key("y")
        #expect(run.model.view.message == "Restarted flaky and 2 nodes that need it")
        #expect(run.model.outcome == nil)
        #expect(run.shown("flaky").display == .executing)
        #expect(run.model.tree.rejudged[run.session.rootID.rawValue] == .executing)
        #expect(run.shown("package").display == .notExecuted) // its turn comes after flaky
        #expect(rows(run).contains { $0.contains("package  attempt 2") })
        #expect(!rows(run).contains { $0.contains("restart of") })
        run.toEnd()
        #expect(run.shown("flaky").display == .succeeded)
        #expect(run.shown("package").display == .succeeded)
        #expect(run.shown("upload").display == .succeeded)
        #expect(run.shown("ship").display == .succeeded)
        #expect(run.model.outcome == .succeeded)
        #expect(run.model.outcome?.exitStatus == 0)
        // Only the newest attempts are current (what the exit summary lists as failed).
        #expect(!run.model.tree.isCurrent(run.row("flaky").rawValue))
        #expect(run.model.tree.isCurrent(run.model.tree.shownNode(run.row("flaky")).rawValue))
        // The group's row is judged again from its children's newest attempts.
        let root = run.session.rootID.rawValue
        #expect(run.model.tree.rejudged[root] == .succeeded)
        let ci = try #require(rows(run).first { $0.contains(" ci ") })
        #expect(ci.contains("100%") && !ci.contains("flaky failed"))
        // The run took until upload's new attempt ended (the exit summary's duration).
        let upload = run.model.tree.nodes[run.model.tree.shownNode(run.row("upload"))]
        #expect(HeadlessSummary(tree: run.model.tree).duration(root: root) == upload.endedAt)
        #expect(upload.endedAt > run.model.tree.nodes[root].endedAt)
        // package started when flaky's new attempt ended, not before.
        let flaky = run.model.tree.nodes[run.model.tree.shownNode(run.row("flaky"))]
        let package = run.model.tree.nodes[run.model.tree.shownNode(run.row("package"))]
        #expect(package.startedAt == flaky.endedAt)
    }

    @Test func aStepFixedByRestartCountsItsNewestAttemptAndLeavesFirstFailure() throws {
        var run = try Run(Self.sequence, seed: Self.seed(path: "0.1"))
        run.toEnd()
        let flakyRow = run.row("flaky").rawValue
        let firstTry = run.model.tree[flakyRow]
        run.model.view.selection = run.row("flaky")
        run.key("R")
        run.toEnd()
        let tree = run.model.tree
        // Six rows (ci, build, flaky, package, ship, upload), each once, as drawn now.
        let summary = HeadlessSummary(tree: tree)
        #expect(
            summary.countsLine == "Summary: 6 succeeded, 0 failed, 0 cancelled, 0 skipped, 0 not executed, 0 executing")
        #expect(frame(&run.model, 100, 10, ascii: false)[0].contains("● 0  ✓ 6  ✗ 0  ⊘ 0  ○ 0  – 0"))
        let report = RunReport(tree: tree)
        #expect(
            report.counts == [
                "succeeded": 6, "failed": 0, "cancelled": 0, "skipped": 0, "notExecuted": 0, "executing": 0,
            ])
        #expect(report.firstFailure == nil)
        let message = try #require(firstTry.message)
        #expect(
            report.fixedByRestart == [
                .init(id: flakyRow, name: "flaky", attempt: 2, message: message, time: firstTry.endedAt)
            ])
        #expect(report.lines.first == "First failure: none")
        #expect(
            report.lines[1]
                == "Fixed by restart: flaky (attempt 2); attempt 1 failed at \(Format.seconds3(firstTry.endedAt))s: \(message)"
        )
        #expect(report.json.contains(#""fixedByRestart":[{"id":\#(flakyRow),"name":"flaky","attempt":2,"#))
        // The critical path chains the newest attempts only: build, then flaky's second attempt.
        let newest = tree.shownNode(run.row("flaky")).rawValue
        #expect(report.criticalPath.map(\.name) == ["build", "flaky", "package", "upload"])
        #expect(report.criticalPath[1].id == newest)
        #expect(!report.criticalPath.contains { $0.id == flakyRow })
        // Collapsed, the root's row hides five rows, all succeeded.
        #expect(tree.countsBelow(run.session.rootID.rawValue).count(.succeeded) == 5)
        #expect(tree.countsBelow(run.session.rootID.rawValue).count(.failed) == 0)
        // The run history keys the newest attempt by its row's path.
        let durations = RunHistory.succeededDurations(tree)
        #expect(durations[RunHistory.path(of: flakyRow, in: tree)] == 2)
        #expect(!durations.keys.contains { $0.hasPrefix("restart of") })
        // Its history entry: the six rows, the restarted one by its newest attempt.
        let entry = HistoryEntry(
            tree: tree, root: run.session.rootID.rawValue, run: nil, start: 0, status: 0, keys: [:])
        #expect(entry.nodes.count == 6)
        #expect(entry.nodes.allSatisfy { $0.outcome == "succeeded" }, "\(entry.nodes.map(\.outcome))")
        let flaky = try #require(entry.nodes.first { $0.path == RunHistory.path(of: flakyRow, in: tree) })
        #expect(flaky.outcome == "succeeded" && flaky.attempts == 2 && flaky.seconds == 2)
    }

    @Test func aRestartedStepInsideANestedSequentialRunsTheRestAtEveryLevel() throws {
        let text = """
            {"kind": "sequential", "name": "ci", "children": [
              {"kind": "sequential", "name": "stage", "children": [
                {"kind": "work", "name": "flaky", "duration": 2, "steps": 0, "failProbability": 0.5},
                {"kind": "work", "name": "lint", "duration": 1, "steps": 0}
              ]},
              {"kind": "work", "name": "deploy", "duration": 1, "steps": 0}
            ]}
            """
        var run = try Run(text, seed: Self.seed(path: "0.0.0"))
        run.toEnd()
        #expect(run.shown("flaky").display == .failed)
        #expect(run.shown("deploy").display == .skipped)
        run.model.view.selection = run.row("flaky")
        run.key("R")
        #expect(run.model.view.message == "Restarted flaky and 2 nodes that need it")
        run.toEnd()
        #expect(run.shown("lint").display == .succeeded)
        #expect(run.shown("deploy").display == .succeeded)
        #expect(run.model.outcome == .succeeded)
    }

    @Test func aSucceededStepRestartedRunsAloneAndTheStepsAfterAFailureStaySkipped() throws {
        // build succeeded and flaky failed after it: package never ran because of flaky, so
        // restarting build runs build only (and the run stays failed).
        var run = try Run(Self.sequence, seed: Self.seed(path: "0.1", failing: 2))
        run.toEnd()
        run.model.view.selection = run.row("build")
        run.key("r")
        #expect(run.model.view.mode == .confirmRestart(row: run.row("build"), dependents: 0))
        run.key("y")
        run.toEnd()
        #expect(run.shown("build").display == .succeeded)
        #expect(run.shown("package").display == .skipped)
        #expect(run.model.outcome == .failed)
        #expect(run.model.outcome?.exitStatus == 1)
    }

    @Test func restartingTwiceMakesAThirdAttemptAndThenTheRestRuns() throws {
        var run = try Run(Self.sequence, seed: Self.seed(path: "0.1", failing: 2))
        run.toEnd()
        run.model.view.selection = run.row("flaky")
        run.key("R")
        // Refused while its new attempt runs.
        run.key("R")
        #expect(run.model.view.message == "flaky is running: it cannot be restarted (cancel it first with x)")
        run.toEnd()
        #expect(run.shown("flaky").display == .failed)
        #expect(run.shown("package").display == .skipped)
        #expect(run.model.outcome == .failed)
        run.model.view.selection = run.row("flaky")
        run.key("R")
        #expect(run.model.view.message == "Restarted flaky and 2 nodes that need it")
        run.toEnd()
        #expect(rows(run).contains { $0.contains("flaky  attempt 3") })
        #expect(rows(run).contains { $0.contains("package  attempt 3") })
        #expect(run.shown("upload").display == .succeeded)
        #expect(run.model.outcome == .succeeded)
        let d = run.model.displayTree()
        let detail = Renderer(ascii: true).detailLines(run.model.tree, d, row: run.row("flaky"))
        #expect(detail.contains("Attempts: 1 failed 2.0s, 2 failed 2.0s, 3 succeeded 2.0s"))
        #expect(run.model.tree.hiddenRoots.count == 2)
    }

    // MARK: The log (issue 32, item 4): replay draws attempts in place

    @Test func theLogLinksEachAttemptToItsRowAndReplayDrawsItInPlace() throws {
        let path = temporaryLogPath("restart")
        defer { unlink(path) }
        var run = try Run(Self.sequence, seed: Self.seed(path: "0.1"), recordTo: path)
        run.toEnd()
        run.model.view.selection = run.row("flaky")
        run.key("R")
        run.toEnd()
        run.session.finishRecording()
        let lines = try readLines(path)
        // One `attempt` line per new top node (flaky, package, ship), naming the rows.
        let attempts = lines.filter { $0.contains("\"ev\":\"attempt\"") }
        #expect(attempts.count == 3)
        let flakyRow = run.row("flaky")
        let flakyNew = run.model.tree.shownNode(flakyRow).rawValue
        #expect(
            attempts.contains { $0.hasSuffix("\"ev\":\"attempt\",\"id\":\(flakyNew),\"of\":\(flakyRow.rawValue)}") })
        // Snapshots keep the link.
        #expect(
            lines.contains { $0.contains("\"ev\":\"snapshot\"") && $0.contains("\"attemptOf\":\(flakyRow.rawValue)") })

        let log = try LogReader.load(path: path)
        // The end line counts the roots as they are; replay's exit status follows the newest
        // attempts, as the live run's does.
        #expect(log.outcome == "failed")
        #expect(ReplaySource.restartedOutcome(log) == .succeeded)
        let source = ReplaySource(log: log, title: "replay")
        var m = DashboardModel(title: "replay")
        source.start(model: &m)
        source.seek(to: log.duration, model: &m)
        #expect(m.tree.shownNode(flakyRow).rawValue == flakyNew)
        #expect(m.tree.attempts[flakyRow.rawValue] == [flakyNew])
        #expect(m.outcome == .succeeded)
        let frame = Renderer(ascii: true).render(m, width: 80, height: 12).grid.lines
        #expect(frame.contains { $0.contains("flaky  attempt 2") })
        #expect(frame.contains { $0.contains("upload  attempt 2") })
        #expect(!frame.contains { $0.contains("restart of") })
        let detail = Renderer(ascii: true).detailLines(m.tree, m.displayTree(), row: flakyRow)
        #expect(detail.contains("Attempts: 1 failed 2.0s, 2 succeeded 2.0s"))
        // Before the restart (when the root failed, at the same virtual time as the restart:
        // the clock stood still): one attempt, and the run failed.
        let root = run.session.rootID
        let settled = try #require(
            (0..<log.eventCount).first { i in
                if case .stateChanged(root, .completed, true, _) = log.events[i].change { return true }
                return false
            })
        var before = DashboardModel(title: "replay")
        before.tree.absorb(log.rebuildEvents(afterEvents: settled + 1))
        before.updateOutcome()
        #expect(before.tree.attempts.isEmpty)
        #expect(before.outcome == .failed)
        // A tree rebuilt from a snapshot (as attach and seeking do) keeps the link too.
        var rebuilt = TreeModel()
        rebuilt.absorb(log.rebuildEvents(afterEvents: log.eventCount))
        #expect(rebuilt.attempts[flakyRow.rawValue] == [flakyNew])
        #expect(rebuilt.hiddenRoots.count == 1)
    }

    @Test func attachPlacesAttemptsFromSnapshotsAndEventsInTheRowsTheyReplace() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        // Snapshot: node 5 holds a restart's attempts; node 6 is job a's (1) new attempt. Then
        // an event adds node 7, job b's (2) new attempt, and links it.
        let text =
            AttachLines.header()
            + AttachLines.snapshot(
                seq: 1,
                extra: #",{"id":5,"kind":"allSettled","name":"restart of job a","weight":1,"state":"executing"}"#
                    + #",{"id":6,"kind":"task","parent":5,"index":0,"name":"job a","weight":1,"state":"executing","attemptOf":1}"#
            )
            + #"{"seq":2,"t":2,"ev":"add","id":7,"kind":"task","name":"job b","weight":1,"parent":5,"index":1}"# + "\n"
            + #"{"seq":3,"t":2,"ev":"attempt","id":7,"of":2}"# + "\n"
        try a.apply(text, program: p, tree: &tree)
        let program = tree.roots[0]
        let kids = tree[program].children.map { Int($0) } // root and the restart's group
        #expect(kids.count == 2)
        let jobs = tree[kids[0]].children.map { Int($0) }
        let news = tree[kids[1]].children.map { Int($0) }
        #expect(tree.attempts[jobs[0]] == [news[0]])
        #expect(tree.attempts[jobs[1]] == [news[1]])
        #expect(tree.hiddenRoots == [kids[1]])
        var m = DashboardModel(title: "t")
        m.tree = tree
        m.fixSelection()
        let rows = frame(&m, 50, 9)
        #expect(rows.contains { $0.contains("job a  attempt 2") })
        #expect(rows.contains { $0.contains("job b  attempt 2") })
        #expect(!rows.contains { $0.contains("restart of") })
    }
}

import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// Restart (pipelines.md "Restart"): `r`/`R` on a settled node re-runs it as a new attempt
/// in place, then the nodes skipped because of it; the outcome follows the newest attempts.
@Suite struct RestartTests {
    /// A seed for which the `work` leaf at `path` with failProbability 0.5 fails on its first
    /// run and succeeds on its first restart (attempt numbers 0 and 1000).
    static func seed(path: String) -> UInt64 {
        for s in UInt64(1)...1000 {
            var first = SplitMix64(seed: s, path: path, attempt: 0)
            var again = SplitMix64(seed: s, path: path, attempt: 1000)
            if first.nextUnit() < 0.5 && !(again.nextUnit() < 0.5) { return s }
        }
        fatalError("no seed")
    }

    struct Run {
        let session: ScenarioSession
        let source: LiveGraphSource
        var model: DashboardModel
        var elapsed = 0.0

        init(_ text: String, seed: UInt64) throws {
            let s = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
            session = try ScenarioSession(scenario: s, seed: seed)
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
        func row(_ name: String) -> Int {
            let d = model.displayTree()
            var r = d.first()
            while let x = r {
                if model.tree.nodes[d.content(x)].name == name { return x }
                r = d.next(x)
            }
            return -1
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
        #expect(run.model.view.mode == .confirmRestart(node: run.row("flaky"), dependents: 2))
        let frame = Renderer(ascii: true).render(run.model, width: 80, height: 10).grid.lines
        #expect(frame.last?.hasPrefix("Restart flaky (and 2 nodes that need it)? [y/N]") == true)
        run.key("y")
        #expect(run.model.view.message == "Restarted flaky and 2 nodes that need it")
        #expect(run.model.outcome == nil) // live again
        #expect(run.shown("flaky").display == .executing)
        #expect(run.shown("package").display == .executing) // waiting for flaky's new attempt
        #expect(run.shown("package").info == "waiting for flaky")
        let rows = Renderer(ascii: true).render(run.model, width: 80, height: 10).grid.lines
        #expect(rows.contains { $0.contains("flaky  attempt 2") })
        run.toEnd()
        #expect(run.shown("flaky").display == .succeeded)
        #expect(run.shown("package").display == .succeeded)
        #expect(run.shown("upload").display == .succeeded)
        #expect(run.model.outcome == .succeeded)
        // The detail pane lists both attempts; the rows keep their places.
        let d = run.model.displayTree()
        let detail = Renderer(ascii: true).detailLines(run.model.tree, d, node: run.row("flaky"))
        #expect(detail.contains("Attempts: 1 failed 2.0s, 2 succeeded 2.0s"))
        #expect(d.first() == run.session.rootID.rawValue)
        #expect(run.model.tree.hiddenRoots.count == 1)
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
        #expect(run.model.view.mode == .confirmRestart(node: run.row("build"), dependents: 0))
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
}

import Synchronization
import TaskGraph
import TaskGraphProcess
import Testing

@testable import TaskViewCore

/// Why a node waits (docs/taskview.md, "Why a node waits"): the why-line of rows, the
/// detail pane's `Why:` chain, on trees built event by event at known times.
@Suite struct WhyLineTests {
    /// A tree fed graph changes at times the test sets.
    struct Script {
        var tree = TreeModel()
        var time = 0.0
        private var sequence: UInt64 = 0

        mutating func apply(_ change: GraphChange) {
            sequence += 1
            tree.absorb(GraphEvent(sequence: sequence, time: time, change: change))
        }

        mutating func add(_ id: Int, _ kind: String, _ name: String, under parent: Int? = nil) {
            apply(
                .added(id: NodeID(id), kind: kind, name: name, weight: 1, parent: parent.map { NodeID($0) }, index: nil)
            )
        }

        mutating func start(_ ids: Int...) {
            for i in ids { apply(.stateChanged(id: NodeID(i), state: .executing, failed: false, message: nil)) }
        }

        mutating func succeed(_ id: Int) {
            apply(.stateChanged(id: NodeID(id), state: .completed, failed: false, message: nil))
        }

        mutating func info(_ id: Int, _ info: String?) {
            apply(.progress(id: NodeID(id), progress: TaskProgress(0, info: info)))
        }

        func why(_ id: Int, history: RunHistory? = nil) -> String? {
            WhyLine.of(id, in: tree, now: time, history: history)?.text
        }

        func chain(_ id: Int, history: RunHistory? = nil) -> [String] {
            WhyLine.chain(id, in: tree, now: time, history: history)
        }
    }

    /// A pipeline as a scenario run builds it: `core` runs `make -C core`; `test` needs
    /// core, `deploy` needs test (each an `after` node over its task); 42 s in.
    static func pipeline() -> Script {
        var s = Script()
        s.add(0, NodeKind.concurrent, "ci")
        s.add(1, NodeKind.command, "core", under: 0)
        s.add(2, NodeKind.after, "test", under: 0)
        s.add(3, NodeKind.command, "test", under: 2)
        s.add(4, NodeKind.after, "deploy", under: 0)
        s.add(5, NodeKind.command, "deploy", under: 4)
        s.tree.needsMap.needs = [2: [1], 4: [2]]
        s.tree.needsMap.ids = [1: "core", 2: "test"]
        s.start(0, 1, 2, 4)
        s.info(2, "waiting for core")
        s.info(4, "waiting for test")
        s.tree.setCommand(CommandInfo(commandLine: "make -C core", pid: 4121), for: 1)
        s.time = 42
        return s
    }

    @Test func aStepWaitingForARunningNeedSaysHowLongItRan() {
        let s = Self.pipeline()
        #expect(s.why(2) == "waiting for core (running 42s)")
        #expect(s.why(4) == "waiting for test")
        #expect(s.chain(4) == ["waiting for test", "waiting for core", #"core is running "make -C core" (pid 4121)"#])
        #expect(s.chain(2) == ["waiting for core", #"core is running "make -C core" (pid 4121)"#])
    }

    @Test func withAHistoryItSaysHowLongTheNeedUsuallyTakes() {
        let s = Self.pipeline()
        let history = RunHistory(expected: ["ci/core": 30], runCount: 3)
        #expect(s.why(2, history: history) == "waiting for core (running 42s, usually 30s)")
        // Without command details (a replay), the end of the chain says how long it ran.
        var r = Self.pipelineWithoutCommands()
        r.time = 75
        #expect(
            r.chain(4, history: history) == [
                "waiting for test", "waiting for core", "core is running 1m15s, usually 30s",
            ])
    }

    static func pipelineWithoutCommands() -> Script {
        var s = Script()
        s.add(0, NodeKind.concurrent, "ci")
        s.add(1, NodeKind.task, "core", under: 0)
        s.add(2, NodeKind.after, "test", under: 0)
        s.add(3, NodeKind.task, "test", under: 2)
        s.add(4, NodeKind.after, "deploy", under: 0)
        s.add(5, NodeKind.task, "deploy", under: 4)
        s.tree.needsMap.needs = [2: [1], 4: [2]]
        s.tree.needsMap.ids = [1: "core", 2: "test"]
        s.start(0, 1, 2, 4)
        return s
    }

    @Test func theRowAndTheDetailPaneShowTheWhy() {
        let s = Self.pipeline()
        var m = DashboardModel(title: "ci")
        m.tree = s.tree
        m.clockNow = 42
        m.history = RunHistory(expected: ["ci/core": 30], runCount: 3)
        m.refreshDerived()
        let grid = Renderer(ascii: true).render(m, width: 160, height: 8).grid.lines.map { $0.withoutTrailingSpaces }
        // The info column holds 30 columns; the detail pane has the whole line.
        #expect(grid.contains { $0.contains("* ci") && $0.hasSuffix("42.0s waiting on 3 children: core, ~") })
        #expect(grid.contains { $0.contains("test") && $0.hasSuffix("42.0s waiting for core (running 42s~") })
        #expect(grid.contains { $0.contains("deploy") && $0.hasSuffix("waiting for test") })
        let d = DisplayTree(tree: s.tree, view: ViewState(), mask: nil)
        let detail = Renderer(ascii: true).detailLines(s.tree, d, row: RowIndex(4), now: 42)
        #expect(
            detail.contains(#"Why: waiting for test <- waiting for core <- core is running "make -C core" (pid 4121)"#))
        let unicode = Renderer(ascii: false).detailLines(s.tree, d, row: RowIndex(2), now: 42)
        #expect(unicode.contains(#"Why: waiting for core ← core is running "make -C core" (pid 4121)"#))
        // A node running its own work has no why.
        #expect(
            !Renderer(ascii: true).detailLines(s.tree, d, row: RowIndex(1), now: 42).contains { $0.hasPrefix("Why:") })
    }

    @Test func aStepWaitingForSeveralNeedsNamesTheFirstAndCountsTheRest() {
        var s = Script()
        s.add(0, NodeKind.concurrent, "ci")
        s.add(1, NodeKind.task, "core", under: 0)
        s.add(2, NodeKind.task, "docs", under: 0)
        s.add(3, NodeKind.task, "lint", under: 0)
        s.add(4, NodeKind.after, "test", under: 0)
        s.add(5, NodeKind.task, "test", under: 4)
        s.tree.needsMap.needs = [4: [1, 2, 3]]
        s.tree.needsMap.ids = [1: "core", 2: "docs", 3: "lint"]
        s.start(0, 1, 2, 3, 4)
        s.time = 5
        s.succeed(1)
        s.time = 12
        #expect(s.why(4) == "waiting for docs (running 12s) and 1 more")
    }

    @Test func aCommandWaitingForASlotSaysSo() {
        var s = Script()
        s.add(0, NodeKind.concurrent, "ci")
        s.add(1, NodeKind.command, "c1", under: 0)
        s.start(0, 1)
        s.info(1, CommandSlots.queuedInfo)
        #expect(s.why(1) == "waiting for a slot")
        s.apply(.attributes(id: NodeID(0), attributes: [NodeAttribute(WhyLine.jobsKey, "8")]))
        #expect(s.why(1) == "waiting for a slot (-j 8, 8 running)")
        // Its row too: `queued` is a why, not progress of its own.
        var m = DashboardModel(title: "ci")
        m.tree = s.tree
        m.refreshDerived()
        let grid = Renderer(ascii: true).render(m, width: 160, height: 6).grid.lines.map { $0.withoutTrailingSpaces }
        #expect(grid.contains { $0.contains("c1") && $0.hasSuffix("waiting for a slot (-j 8, 8 r~") })
        // Once it has its slot, it runs its own work.
        s.info(1, nil)
        #expect(s.why(1) == nil)
    }

    @Test func aScenarioRunRecordsItsJobsOnItsRoot() throws {
        let text = #"{"kind": "concurrent", "name": "ci", "children": [{"kind": "work", "name": "a"}]}"#
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: scenario, seed: 1, jobs: 3)
        let events = Mutex<[GraphEvent]>([])
        let (snapshot, observation) = session.graph.snapshotAndObserve { e in events.withLock { $0.append(e) } }
        session.start()
        session.graph.flushObservers()
        observation.cancel()
        var tree = TreeModel(snapshot: snapshot)
        tree.absorb(events.withLock { $0 })
        #expect(tree.attributes[session.rootID.rawValue] == [NodeAttribute(WhyLine.jobsKey, "3")])
    }

    @Test func aStepSkippedBecauseANeedFailedSaysWhich() {
        var s = Script()
        s.add(0, NodeKind.concurrent, "ci")
        s.add(1, NodeKind.after, "test", under: 0)
        s.add(2, NodeKind.task, "test", under: 1)
        s.start(0, 1)
        s.info(1, "needs core, which failed")
        s.apply(.cancelRequested(id: NodeID(1), source: CancelSource.needs))
        s.apply(.stateChanged(id: NodeID(1), state: .cancelled, failed: false, message: nil))
        #expect(s.why(1) == "skipped: needs core, which failed")
        #expect(s.chain(1) == ["skipped: needs core, which failed"])
        // Its row keeps the reason alone: the glyph says skipped.
        var m = DashboardModel(title: "ci")
        m.tree = s.tree
        m.refreshDerived()
        let grid = Renderer(ascii: true).render(m, width: 100, height: 6).grid.lines.map { $0.withoutTrailingSpaces }
        #expect(grid.contains { $0.hasPrefix("`- - test") && $0.hasSuffix(" needs core, which failed") })
        let d = DisplayTree(tree: s.tree, view: ViewState(), mask: nil)
        #expect(
            Renderer(ascii: true).detailLines(s.tree, d, row: RowIndex(1)).contains(
                "Why: skipped: needs core, which failed"))
    }

    /// A scope with children started at 3, 1, 2 and 4 s (the last one already done).
    static func scope() -> Script {
        var s = Script()
        s.add(0, NodeKind.scope, "request")
        s.start(0)
        for (id, name, at) in [(1, "a", 3.0), (2, "b", 1.0), (3, "c", 2.0), (4, "d", 4.0)] {
            s.time = at
            s.add(id, NodeKind.scope, name, under: 0)
            s.start(id)
        }
        s.succeed(4)
        s.time = 10
        return s
    }

    @Test func aScopeWaitingOnChildrenNamesTheLongestRunningFirst() {
        var s = Self.scope()
        #expect(s.why(0) == "waiting on 3 children: b, c, a")
        #expect(s.chain(0) == ["waiting on 3 children: b, c, a", "b is running its own code"])
        s.add(5, NodeKind.scope, "e", under: 0)
        s.start(5)
        #expect(s.why(0) == "waiting on 4 children: b, c, a, ...")
        for id in [1, 2, 5] { s.succeed(id) }
        #expect(s.why(0) == "waiting on 1 child: c")
    }

    @Test func aScopeWithNoRunningChildRunsItsOwnCode() {
        var s = Self.scope()
        for id in [1, 2, 3] { s.succeed(id) }
        #expect(s.why(0) == "running its own code")
        // A plain task doing its work says nothing; nor does a node with progress info of its
        // own on its row.
        s.add(6, NodeKind.task, "leaf")
        s.start(6)
        #expect(s.why(6) == nil)
        s.info(0, "step 2 of 3")
        var m = DashboardModel(title: "t")
        m.tree = s.tree
        m.refreshDerived()
        let grid = Renderer(ascii: true).render(m, width: 100, height: 10).grid.lines.map { $0.withoutTrailingSpaces }
        #expect(grid.contains { $0.contains("request") && $0.hasSuffix("step 2 of 3") })
    }

    @Test func aLinkWaitsForItsUpstream() {
        var s = Script()
        s.add(0, NodeKind.then, "fetch then parse")
        s.add(1, NodeKind.task, "fetch", under: 0)
        s.add(2, NodeKind.task, "parse", under: 0)
        s.start(0, 1)
        #expect(s.why(2) == "waiting for fetch")
        #expect(s.why(0) == "waiting on 1 child: fetch")
        // In a sequential, the step before it.
        s.add(3, NodeKind.sequential, "steps")
        s.add(4, NodeKind.task, "one", under: 3)
        s.add(5, NodeKind.task, "two", under: 3)
        s.add(6, NodeKind.task, "three", under: 3)
        s.start(3, 4)
        #expect(s.why(5) == "waiting for one")
        #expect(s.chain(6) == ["waiting for two", "waiting for one", "one is running 0s"])
        s.succeed(4)
        // A group between two children has no code of its own: it says nothing.
        #expect(s.why(3) == nil)
        s.start(5)
        #expect(s.why(6) == "waiting for two")
        #expect(s.why(5) == nil)
    }

    @Test func aLibraryAfterNamesWhatItWaitsFor() {
        var s = Script()
        s.add(0, NodeKind.after, "report")
        s.add(1, NodeKind.task, "report", under: 0)
        s.start(0)
        s.info(0, "waiting for load, parse")
        #expect(s.why(0) == "waiting for load, parse")
        // Once its task runs, the task's own progress is the row's.
        s.start(1)
        #expect(s.why(0) == nil)
    }

    @Test func aRefWaitsForTheSharedTask() {
        var s = Script()
        s.add(0, NodeKind.task, "fetch user")
        s.add(1, NodeKind.ref, "fetch user")
        s.apply(.ref(id: NodeID(1), of: NodeID(0)))
        s.start(0, 1)
        #expect(s.why(1) == "waiting for fetch user")
    }
}

extension String {
    /// A grid line without the spaces that pad it to the screen's width.
    fileprivate var withoutTrailingSpaces: String {
        String(self[..<(lastIndex { $0 != " " }.map(index(after:)) ?? startIndex)])
    }
}

import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// The live source against a real graph: keys cancel through `Graph.cancel` and the tree
/// shows the result at once; `allSettled` keeps its other members running.
@Suite struct DashboardLiveSourceTests {
    struct Fixture {
        let clock = VirtualClock()
        let graph: Graph
        let root: GraphTask<[Settled<Void, Never>], Never>
        let leaves: [GraphTask<Void, Never>]
        let source: LiveGraphSource
        var model = DashboardModel(title: "test")

        init(keys: (@Sendable (String, NodeID?) -> Void)? = nil) {
            graph = Graph(clock: clock)
            let g = graph
            leaves = (0..<3).map { GraphTask<Void, Never>.delay(seconds: 10, name: "leaf \($0)", graph: g) }
            root = GraphTask.allSettled(leaves, name: "group", graph: graph)
            let r = root
            source = LiveGraphSource(
                graph: graph, clock: clock, root: root.id, title: "test", speed: 1,
                onKey: keys, start: { r.execute() })
            source.start(model: &model)
            model.fixSelection()
        }
    }

    @Test func keyboardCancelOfOneMemberLeavesTheOthersRunning() {
        final class Keys: @unchecked Sendable { var seen: [(String, NodeID?)] = [] }
        let keys = Keys()
        var f = Fixture(keys: { keys.seen.append(($0, $1)) })
        #expect(f.model.tree[f.root.id.rawValue].display == .executing)
        _ = f.source.tick(realElapsed: 2, model: &f.model)
        #expect(f.model.clockNow == 2)
        let effects = press(&f.model, .down, .char("x"), .char("y"))
        #expect(effects == [.cancel(node: NodeIndex(f.leaves[0].id.rawValue), source: "keyboard")])
        for e in effects { f.source.perform(e, key: .char("y"), model: &f.model) }
        #expect(f.model.tree[f.leaves[0].id.rawValue].display == .cancelled)
        #expect(f.model.tree[f.leaves[0].id.rawValue].cancelSource == "keyboard")
        #expect(f.model.view.message == "Cancelled leaf 0")
        #expect(f.model.tree[f.leaves[1].id.rawValue].display == .executing)
        #expect(f.model.tree[f.root.id.rawValue].display == .executing)
        #expect(keys.seen.count == 1 && keys.seen[0].0 == "y" && keys.seen[0].1 == f.leaves[0].id)
        _ = f.source.tick(realElapsed: 11, model: &f.model)
        #expect(f.model.tree[f.leaves[1].id.rawValue].display == .succeeded)
        #expect(f.model.outcome == .succeeded)
        #expect(f.model.clockNow == 10) // the clock stops where the root settled
    }

    @Test func aLogCutByAFullDiskIsSaidInTheFooterOnceWhileTheRunGoesOn() throws {
        final class Gate: @unchecked Sendable { var open = false } // the test's thread only
        let gate = Gate()
        var f = Fixture()
        let recorder = try GraphRecorder(graph: f.graph, path: "/dev/full")
        recorder.flush() // the first lines meet the full disk
        f.source.writeFailure.recordingError = { gate.open ? recorder.writeError : nil }
        _ = f.source.tick(realElapsed: 0.5, model: &f.model)
        gate.open = true
        _ = f.source.tick(realElapsed: 1, model: &f.model)
        #expect(f.model.view.message == nil) // looked for at most once a second
        #expect(f.source.tick(realElapsed: 1.6, model: &f.model))
        #expect(
            f.model.view.message
                == "Cannot write /dev/full: No space left on device (the log is cut; the run goes on)")
        f.model.view.message = nil
        _ = f.source.tick(realElapsed: 3, model: &f.model)
        #expect(f.model.view.message == nil) // said once
        _ = f.source.tick(realElapsed: 11, model: &f.model)
        #expect(f.model.outcome == .succeeded)
        recorder.finish()
    }

    @Test func aCancelThatFindsTheNodeSettledSaysNothingWasCancelled() {
        final class Keys: @unchecked Sendable { var seen: [(String, NodeID?)] = [] }
        let keys = Keys()
        var f = Fixture(keys: { keys.seen.append(($0, $1)) })
        _ = f.source.tick(realElapsed: 2, model: &f.model)
        let effects = press(&f.model, .down, .char("x"), .char("y"))
        #expect(effects == [.cancel(node: NodeIndex(f.leaves[0].id.rawValue), source: "keyboard")])
        // The leaves finish after the key was read, before the cancel reaches the graph.
        f.clock.advance(by: 10)
        for e in effects { f.source.perform(e, key: .char("y"), model: &f.model) }
        #expect(f.model.tree[f.leaves[0].id.rawValue].display == .succeeded)
        #expect(f.model.view.message == "leaf 0 had finished: nothing cancelled")
        #expect(keys.seen.isEmpty)
    }

    @Test func quitBeforeTheEndCancelsTheRootWithSourceQuit() {
        var f = Fixture()
        _ = f.source.tick(realElapsed: 1, model: &f.model)
        press(&f.model, .char("q"))
        #expect(f.model.view.quitRequested)
        f.source.finish(source: "quit", model: &f.model)
        #expect(f.model.outcome == .cancelled)
        #expect(f.model.tree[f.root.id.rawValue].cancelSource == "quit")
        #expect(f.model.outcome?.exitStatus == 130)
    }

    @Test func idleSourceAsksForNoWakeupsOnceSettled() {
        var f = Fixture()
        #expect(f.source.secondsUntilNextTick(realElapsed: 0, model: f.model) != nil)
        _ = f.source.tick(realElapsed: 20, model: &f.model)
        #expect(f.source.secondsUntilNextTick(realElapsed: 20, model: f.model) == nil)
        #expect(!f.source.tick(realElapsed: 30, model: &f.model))
    }

    @Test func cancellingALargeSubtreeStaysFast() {
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let leaves = (0..<10_000).map { GraphTask<Void, Never>.delay(seconds: 5, name: "n\($0)", graph: graph) }
        let group = GraphTask.concurrent(leaves, name: "big", graph: graph)
        let source = LiveGraphSource(
            graph: graph, clock: clock, root: group.id, title: "big", speed: 1,
            start: { group.execute() })
        var model = DashboardModel(title: "big")
        source.start(model: &model)
        model.fixSelection()
        #expect(model.tree.counts[DisplayState.executing.rawValue] == 10_001)
        let effects = press(&model, .char("X"))
        for e in effects { source.perform(e, key: .char("X"), model: &model) }
        #expect(model.tree.counts[DisplayState.cancelled.rawValue] == 10_001)
        #expect(model.outcome == .cancelled)
    }
}

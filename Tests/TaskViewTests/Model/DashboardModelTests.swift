import TaskGraph
import Testing

@testable import TaskViewCore

@Suite struct DashboardModelTests {
    @Test func countsFollowEveryStateChange() {
        let m = model(smallBuild())
        let c = m.tree.counts
        #expect(c == [0, 2, 2, 1, 0, 0]) // notExecuted, executing, succeeded, failed, cancelled, skipped
        #expect(m.tree.liveCount == 5)
    }

    @Test func leavesCreatedBeforeTheirCompositeAreAdopted() {
        var s = EventScript()
        s.add(0, "a")
        s.add(1, "b")
        s.add(2, "seq", kind: "sequential")
        s.adopt(0, by: 2, at: 0)
        s.adopt(1, by: 2, at: 1)
        let m = model(s)
        #expect(m.tree.roots == [2])
        #expect(m.tree[2].children == [0, 1])
        #expect(m.tree[1].index == 1)
    }

    @Test func skippedMeansNeverExecutedUnderASettledOrSkippedParent() {
        var s = EventScript()
        s.add(0, "root", kind: "sequential")
        s.add(1, "first", parent: 0)
        s.add(2, "rest", kind: "sequential", parent: 0)
        s.add(3, "deep", parent: 2)
        s.start(0)
        s.start(1)
        var m = model(s)
        #expect(m.tree[3].display == .notExecuted)
        m.tree.absorb(GraphEvent(sequence: 50, time: 1, change: .cancelRequested(id: NodeID(0), source: "keyboard")))
        m.tree.absorb(
            GraphEvent(
                sequence: 51, time: 1,
                change: .stateChanged(id: NodeID(1), state: .cancelled, failed: false, message: nil)))
        m.tree.absorb(
            GraphEvent(
                sequence: 52, time: 1,
                change: .stateChanged(id: NodeID(0), state: .cancelled, failed: false, message: nil)))
        #expect(m.tree[2].display == .skipped)
        #expect(m.tree[3].display == .skipped)
        #expect(m.tree.counts[DisplayState.skipped.rawValue] == 2)
        #expect(m.tree.counts[DisplayState.cancelled.rawValue] == 2)
        #expect(m.tree[0].cancelSource == "keyboard")
        // A node adopted under a settled parent is skipped at once.
        m.tree.absorb(
            GraphEvent(
                sequence: 53, time: 2,
                change: .added(id: NodeID(4), kind: "task", name: "late", weight: 1, parent: NodeID(0), index: 9)))
        #expect(m.tree[4].display == .skipped)
    }

    @Test func droppedSubtreesVanish() {
        var s = smallBuild()
        s.emit(.dropped(ids: [NodeID(1), NodeID(2), NodeID(3)]))
        var m = model(s)
        #expect(m.tree[0].children == [4])
        #expect(m.tree.liveCount == 2)
        #expect(frame(&m, 20, 5)[1...2] == ["* build", "`- * link  w 3"])
    }

    @Test func overallProgressIsTheWeightedMeanOfRoots() {
        var s = EventScript()
        s.add(0, "a", weight: 1)
        s.add(1, "b", weight: 3)
        s.start(0)
        s.start(1)
        s.progress(0, 1)
        s.progress(1, 0.5)
        #expect(model(s).tree.overallProgress == 0.625)
        #expect(DashboardModel(title: "").tree.overallProgress == nil)
    }

    @Test func snapshotSeedsTheSameTreeAsEvents() {
        let s = smallBuild()
        var replica = GraphReplica()
        for e in s.events { replica.apply(e) }
        let fromSnapshot = TreeModel(snapshot: replica.snapshot)
        let fromEvents = model(s).tree
        #expect(fromSnapshot.counts == fromEvents.counts)
        #expect(fromSnapshot.roots == fromEvents.roots)
        #expect(fromSnapshot[1].children == fromEvents[1].children)
    }

    @Test func absorbsAMillionEventsQuickly() {
        // Correctness of the bulk path (speed is measured by the benchmark).
        var tree = LargeTreeFixture.makeTree(nodes: 1000)
        let events = LargeTreeFixture.progressEvents(nodes: 1000, count: 10_000)
        tree.absorb(events)
        #expect(tree.liveCount == 1000)
    }
}

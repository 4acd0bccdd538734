import Testing

@testable import TaskGraph

/// `Graph.rename`: the node table takes the name, a `renamed` event records it, and a replica
/// rebuilt from the events agrees with the graph.
@Suite struct RenameTests {
    @Test func aRenameChangesTheSnapshotAndIsOneEventAReplicaFollows() {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let task = timed(1, after: 2, name: "GET", graph: g)
        task.execute()
        let before = g.snapshot()
        g.rename(task.id, to: "GET /users/:id")
        g.rename(task.id, to: "GET /users/:id") // the same name: no event
        g.rename(NodeID(999), to: "nobody")
        #expect(g.snapshot()[task.id]?.name == "GET /users/:id")
        #expect(before[task.id]?.name == "GET")
        let renames = log.changes.filter { if case .renamed = $0 { true } else { false } }
        #expect(renames == [.renamed(id: task.id, name: "GET /users/:id")])
        #expect(log.replica.snapshot.nodes == g.snapshot().nodes)
        clock.runUntilIdle()
        #expect(g.snapshot()[task.id]?.name == "GET /users/:id")
        #expect(log.replica.snapshot.nodes == g.snapshot().nodes)
    }
}

import Foundation
import TestSupport
import Testing

@testable import TaskGraph

/// A served graph keeps every node's start and end, so that a viewer attaching late (or
/// resynced after it fell behind) gets each node's own times (truth.md).
@Suite struct ServeTimesTests {
    @Test func snapshotsCarryEveryNodesStartAndEnd() throws {
        let dir = SocketDir()
        defer { dir.cleanup() }
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let server = try graph.serve(at: dir.path + "/s.sock")
        defer { server.stop() }
        let done = GraphTask.delay(seconds: 2, name: "done", graph: graph)
        let running = GraphTask.delay(seconds: 100, name: "running", graph: graph)
        let waiting = GraphTask.delay(seconds: 1, name: "waiting", graph: graph)
        clock.advance(by: 1)
        done.execute()
        clock.advance(by: 1)
        running.execute()
        clock.advance(by: 1.5) // `done` ended at 3
        // The graph's own snapshot.
        let snap = graph.snapshot()
        let byName = Dictionary(uniqueKeysWithValues: snap.nodes.values.map { ($0.name, $0) })
        #expect(byName["done"]?.startTime == 1 && byName["done"]?.endTime == 3)
        #expect(byName["running"]?.startTime == 2 && byName["running"]?.endTime == nil)
        #expect(byName["waiting"]?.startTime == nil && byName["waiting"]?.endTime == nil)
        // A viewer attaching now: `started` and `ended` in the stream's time (since `serve()`).
        let viewer = try TestViewer(path: server.path)
        let (_, parts) = try #require(viewer.readHeaderAndSnapshot())
        let nodes = parts.flatMap { $0["nodes"] as? [[String: Any]] ?? [] }
        func node(_ name: String) -> [String: Any]? { nodes.first { $0["name"] as? String == name } }
        #expect(node("done")?["started"] as? Double == 1)
        #expect(node("done")?["ended"] as? Double == 3)
        #expect(node("running")?["started"] as? Double == 2)
        #expect(node("running")?["ended"] == nil)
        #expect(node("waiting")?["started"] == nil)
        running.cancel()
        _ = waiting
    }
}

import Foundation
import Testing
@testable import TaskGraph

/// A server whose every viewer is stalled lets go of the graph (so a stopped viewer costs the
/// program what no viewer costs), and observes again when a viewer reads or connects.
@Suite struct ServeLetGoTests {
    /// Overflows `viewer` (which does not read) with progress events; returns how many.
    private func overflow(_ a: Reporter, count: Int) {
        let info = String(repeating: "i", count: 4000)
        for k in 0..<count { a.progress(TaskProgress(Double(k) / Double(count), info: info)) }
    }

    private func observing(_ server: GraphServer) -> Bool {
        server.lock.withLock { server.observation != nil }
    }

    @Test func aStalledViewerLetsGoOfTheGraphAndIsResyncedWithTheExactCount() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let a = Reporter(name: "busy", graph: g)
        defer { a.task.cancel() }
        let server = try g.serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        var rcvbuf: Int32 = 4096
        setsockopt(viewer.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, socklen_t(MemoryLayout<Int32>.size))
        #expect(viewer.readHeaderAndSnapshot() != nil)
        #expect(observing(server))
        let first = 10_000
        overflow(a, count: first)   // ~40 MB against an 8 MiB buffer
        #expect(await eventuallyAsync { !observing(server) })
        // While let go: events the viewer will have skipped, at no observer's cost.
        let more = 500
        for k in 0..<more { a.progress(TaskProgress(0.5, info: "while let go \(k)")) }
        #expect(!observing(server))

        // Reading again: the lines handed out before, then resync, a fresh snapshot, live.
        var lastFraction = -1.0
        var resync: [String: Any]?
        var lastSeq = 1
        var gapless = true
        while let o = viewer.object() {
            if let s = o["seq"] as? Int {
                if s != lastSeq + 1 { gapless = false }
                lastSeq = s
            }
            if o["ev"] as? String == "resync" { resync = o; break }
            if o["ev"] as? String == "progress", let f = o["fraction"] as? Double { lastFraction = f }
        }
        #expect(gapless)
        let got = Int((lastFraction * Double(first)).rounded()) + 1   // progress events received
        let skipped = try #require(resync?["skipped"] as? Int)
        #expect(skipped == first - got + more)
        let snapshot = try #require(viewer.object())
        #expect(snapshot["ev"] as? String == "snapshot")
        #expect(snapshot["seq"] as? Int == lastSeq + 1)
        let node = (snapshot["nodes"] as? [[String: Any]])?.first
        #expect(node?["info"] as? String == "while let go \(more - 1)")
        #expect(observing(server))
        a.progress(TaskProgress(1, info: "after"))
        let after = viewer.object { $0["ev"] as? String == "progress" }
        #expect(after?["info"] as? String == "after")
        #expect(after?["seq"] as? Int == lastSeq + 2)
    }

    @Test func aNewViewerWhileLetGoGetsTheGraphAsItIs() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let a = Reporter(name: "busy", graph: g)
        defer { a.task.cancel() }
        let server = try g.serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        let stalled = try TestViewer(path: server.path)
        var rcvbuf: Int32 = 4096
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, socklen_t(MemoryLayout<Int32>.size))
        #expect(stalled.readHeaderAndSnapshot() != nil)
        overflow(a, count: 10_000)
        #expect(await eventuallyAsync { !observing(server) })
        a.progress(TaskProgress(0.25, info: "before the second viewer"))
        let second = try TestViewer(path: server.path)
        let (_, parts) = try #require(second.readHeaderAndSnapshot())
        let nodes = parts.flatMap { $0["nodes"] as? [[String: Any]] ?? [] }
        #expect(nodes.first?["info"] as? String == "before the second viewer")
        #expect(observing(server))
        a.progress(TaskProgress(0.5, info: "live"))
        #expect(second.object { $0["ev"] as? String == "progress" }?["info"] as? String == "live")
    }
}

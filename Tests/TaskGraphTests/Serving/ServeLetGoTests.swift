import Foundation
import Testing

@testable import TaskGraph

/// A server whose every viewer is stalled lets go of the graph (so a stopped viewer costs the
/// program what no viewer costs), and observes again when a viewer reads or connects.
@Suite struct ServeLetGoTests {
    /// Overflows a viewer that does not read, in rounds of 2,500 progress events of 4 KB
    /// (10 MB against an 8 MiB buffer), until the server lets go of the graph; returns how
    /// many events it made (nil: no let-go within 60 s). One fixed amount was not always
    /// enough: when the server thread runs late (a loaded machine), a buffer can overflow
    /// while the socket still takes bytes, and the viewer is then resynced, not let go.
    /// Event k's fraction is k / 1,000,000.
    private func overflowUntilLetGo(_ a: Reporter, _ server: GraphServer) async -> Int? {
        let info = String(repeating: "i", count: 4000)
        let deadline = Date().addingTimeInterval(60)
        var made = 0
        while Date() < deadline {
            for _ in 0..<2_500 {
                a.progress(TaskProgress(Double(made) / 1e6, info: info))
                made += 1
            }
            if await eventuallyAsync(timeout: 2, minPolls: 50, { !observing(server) }) { return made }
        }
        return nil
    }

    private func observing(_ server: GraphServer) -> Bool {
        server.lock.withLock { server.observation != nil }
    }

    @Test func aStalledViewerLetsGoOfTheGraphAndIsResyncedWithTheExactCount() async throws {
        let served = try ServedReporter(name: "busy")
        defer { served.stop() }
        let (a, server) = (served.reporter, served.server)
        let viewer = try served.viewer(receiveBuffer: 4096)
        #expect(observing(server))
        let made = try #require(await overflowUntilLetGo(a, server))
        // While let go: events the viewer will have skipped, at no observer's cost.
        let more = 500
        for k in 0..<more { a.progress(TaskProgress(0.5, info: "while let go \(k)")) }
        #expect(!observing(server))

        // Reading again: the lines handed out before (with any resync of an earlier overflow
        // that came while the socket still took bytes), then the resync of the let-go, a
        // fresh snapshot of the graph as it is, and live events. Every event made is either
        // received or counted as skipped, and the numbering has no gap.
        var received = 0
        var skipped = 0
        var lastSeq = 1
        var gapless = true
        var snapshot: [String: Any]?
        while let o = viewer.object() {
            if let s = o["seq"] as? Int {
                if s != lastSeq + 1 { gapless = false }
                lastSeq = s
            }
            switch o["ev"] as? String {
            case "progress": received += 1
            case "resync": skipped += o["skipped"] as? Int ?? 0
            case "snapshot":
                let info = (o["nodes"] as? [[String: Any]])?.first?["info"] as? String
                if info == "while let go \(more - 1)" { snapshot = o }
            default: break
            }
            if snapshot != nil { break }
        }
        #expect(gapless)
        #expect(snapshot != nil)
        #expect(received + skipped == made + more)
        #expect(observing(server))
        a.progress(TaskProgress(1, info: "after"))
        let after = viewer.object { $0["ev"] as? String == "progress" }
        #expect(after?["info"] as? String == "after")
        #expect(after?["seq"] as? Int == lastSeq + 1)
    }

    @Test func aNewViewerWhileLetGoGetsTheGraphAsItIs() async throws {
        let served = try ServedReporter(name: "busy")
        defer { served.stop() }
        let (a, server) = (served.reporter, served.server)
        let stalled = try served.viewer(receiveBuffer: 4096)
        #expect(await overflowUntilLetGo(a, server) != nil)
        a.progress(TaskProgress(0.25, info: "before the second viewer"))
        let second = try TestViewer(path: server.path)
        let (_, parts) = try #require(second.readHeaderAndSnapshot())
        let nodes = parts.flatMap { $0["nodes"] as? [[String: Any]] ?? [] }
        #expect(nodes.first?["info"] as? String == "before the second viewer")
        #expect(observing(server))
        a.progress(TaskProgress(0.5, info: "live"))
        #expect(second.object { $0["ev"] as? String == "progress" }?["info"] as? String == "live")
        withExtendedLifetime(stalled) {} // connected, not reading, to the end
    }
}

import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running program (the shared graph drops finished roots) that is recorded or has a
/// viewer attached: what the recorder and the server hold follows the live nodes, not every
/// id the program has used, and ids past what a log model keeps never stop the program.
@Suite struct LongRunningRecorderTests {
    private func add(_ m: inout RecorderModel, _ id: Int, parent: Int? = nil) {
        m.apply(
            .added(
                id: NodeID(id), kind: NodeKind.task, name: "n\(id)", weight: 1,
                parent: parent.map { NodeID($0) }, index: parent == nil ? nil : 0))
    }

    @Test func droppedRangesAreFreedAndTheWindowFollowsTheLiveNodes() {
        var m = RecorderModel()
        // 200,000 short-lived roots, each dropped 100 roots later (retention).
        for id in 0..<200_000 {
            add(&m, id)
            if id >= 100 { m.apply(.dropped(ids: [NodeID(id - 100)])) }
        }
        #expect(m.liveCount == 100)
        #expect(m.windowChunks <= 2) // 49 chunks of ids were used
        #expect(m.liveNodesByID().map(\.id) == Array(199_900..<200_000).map(Int32.init))
    }

    @Test func anOldBlockStillFillingBelowTheWindowIsKept() {
        var m = RecorderModel()
        add(&m, 70) // a stripe's block, still being filled later
        for id in 50_000..<50_010 { add(&m, id) }
        m.apply(.dropped(ids: [NodeID(70)]))
        #expect(m.windowChunks == 1) // ids 0-4095 freed; the window starts at 50,000's chunk
        add(&m, 71, parent: 50_001) // the old block goes on: the window grows back down
        #expect(m.liveNodesByID().map(\.id) == [71] + Array(50_000..<50_010).map(Int32.init))
        #expect(m.liveNodesByID().first?.parent == 50_001)
        #expect(m.parentOf(71) == 50_001)
    }

    @Test func theNewestChunkIsKeptWhenEmptySoOneTaskAtATimeDoesNotChurn() {
        var m = RecorderModel()
        for id in 0..<10 {
            add(&m, id)
            m.apply(.dropped(ids: [NodeID(id)]))
        }
        #expect(m.windowChunks == 1 && m.liveCount == 0)
        add(&m, 4096) // the next chunk: the empty old one goes
        #expect(m.windowChunks == 1)
    }

    @Test func idsPastTheLogModelsRangeDoNotStopRecordingOrServing() throws {
        let g = Graph()
        g.nextBlock.store(Int(Int32.max) / 64 - 1, ordering: .relaxed) // ids cross 2^31 - 1
        let leaves = (0..<200).map { i in GraphTask<Int, Never>(name: "leaf\(i)", graph: g) { _, _ in } }
        let root = GraphTask<Int, Never>.concurrent(leaves, name: "root", graph: g).execute()
        #expect(root.id.rawValue > Int(Int32.max) && leaves[0].id.rawValue <= Int(Int32.max))
        let tmp = TemporaryDirectory("taskgraph-bigids")
        defer { tmp.remove() }
        let path = tmp.file("log.jsonl")
        defer { unlink(path) }
        let recorder = try g.record(to: path, producer: "test") // its first snapshot holds both kinds
        let dir = SocketDir()
        defer { dir.cleanup() }
        let server = try g.serve(at: "\(dir.path)/s.sock", name: "bigids")
        let viewer = try TestViewer(path: server.path) // the server builds its model now
        let start = viewer.readHeaderAndSnapshot()
        #expect(start?.snapshot.first?["nodes"] != nil)
        root.cancel()
        #expect(
            viewer.object(where: { $0["ev"] as? String == "cancel" && $0["id"] as? Int == root.id.rawValue }) != nil)
        recorder.finish()
        server.stop()
        #expect(viewer.object(where: { $0["ev"] as? String == "end" }) != nil)
        #expect(root.state == .cancelled)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"id\":\(root.id.rawValue)")) // the events are written as they are
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").last?.contains("\"ev\":\"end\"") == true)
    }
}

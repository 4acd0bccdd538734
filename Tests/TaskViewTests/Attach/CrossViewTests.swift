import Foundation
import Synchronization
import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// One run, two recordings: the program's own (`Graph.record`) and an attached viewer's
/// (`taskview attach --record`). Replay, report and exports of both tell the same story:
/// durations within 5 ms, outcomes and counts exact (truth.md).
@Suite struct CrossViewTests {
    struct Boom: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    /// Name → (state, failed, duration) of the replayed nodes, program rows left out.
    struct NodeView: Equatable, CustomStringConvertible {
        var display: DisplayState
        var duration: Double
        var description: String { "\(display) \(duration)" }
    }

    func replayed(_ log: ReplayLog) -> TreeModel {
        var tree = TreeModel()
        for e in log.events { tree.absorb(e) }
        return tree
    }

    func nodes(_ tree: TreeModel) -> [String: NodeView] {
        var out: [String: NodeView] = [:]
        for id in tree.nodes.ids where tree.contains(id) && tree[id].kind != TreeModel.programKind {
            let n = tree[id]
            let d = n.startedAt.isNaN || n.endedAt.isNaN ? -1 : n.endedAt - n.startedAt
            out[n.name] = NodeView(display: n.display, duration: d)
        }
        return out
    }

    /// Name → duration in seconds of the Chrome trace's complete slices.
    func chromeDurations(_ log: ReplayLog) throws -> [String: Double] {
        let json = try JSONSerialization.jsonObject(with: Data(ChromeTrace.export(log)))
        let events = (json as? [String: Any])?["traceEvents"] as? [[String: Any]] ?? (json as? [[String: Any]] ?? [])
        var out: [String: Double] = [:]
        for e in events where e["ph"] as? String == "X" {
            guard let name = e["name"] as? String, let dur = (e["dur"] as? NSNumber)?.doubleValue else { continue }
            out[name] = dur / 1e6
        }
        return out
    }

    /// Name → (duration in seconds, status code) of the OTLP spans.
    func otlpSpans(_ log: ReplayLog) throws -> [String: (Double, Int)] {
        let json = try JSONSerialization.jsonObject(with: Data(OTLPTrace.export(log))) as? [String: Any]
        var out: [String: (Double, Int)] = [:]
        for rs in json?["resourceSpans"] as? [[String: Any]] ?? [] {
            for ss in rs["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in ss["spans"] as? [[String: Any]] ?? [] {
                    guard let name = span["name"] as? String,
                        let start = (span["startTimeUnixNano"] as? String).flatMap(Double.init),
                        let end = (span["endTimeUnixNano"] as? String).flatMap(Double.init)
                    else { continue }
                    let code = ((span["status"] as? [String: Any])?["code"] as? NSNumber)?.intValue ?? 0
                    out[name] = ((end - start) / 1e9, code)
                }
            }
        }
        return out
    }

    /// Pumps `session` at viewer time `now` until `done` (30 s at most).
    func pump(_ session: AttachSession, _ tree: inout TreeModel, now: Double, until done: (TreeModel) -> Bool) -> Bool {
        let deadline = AttachLines.monotonic() + 30
        while AttachLines.monotonic() < deadline {
            _ = session.pump(tree: &tree, now: now)
            if done(tree) { return true }
            session.wait(seconds: 0.02)
        }
        return false
    }

    func settled(_ name: String) -> (TreeModel) -> Bool {
        { t in t.nodes.ids.contains { t.contains($0) && t[$0].name == name && t[$0].state.isSettled } }
    }

    /// The scripted program: a served graph on a virtual clock, recording itself, whose
    /// `setup` ran 0...0.5 s before anyone attached; `start()` begins the rest at 1.5 s:
    /// `long` (9 s), `short` (4 ms), `bad` (fails after 2 s) and `stuck` (cancelled at 3 s by
    /// `cancelStuck()`).
    struct Program {
        let tmp = TemporaryDirectory("taskview-crossview")
        let clock = VirtualClock()
        let graph: Graph
        let recording: any GraphObservation
        let server: GraphServer
        var own: String { tmp.path + "/own.log" }
        var viewed: String { tmp.path + "/viewed.log" }
        private let stuck: GraphTask<Void, Never>

        init() throws {
            graph = Graph(clock: clock)
            recording = try graph.record(to: tmp.path + "/own.log")
            server = try graph.serve(at: tmp.path + "/p.sock", name: "prog")
            GraphTask.delay(seconds: 0.5, name: "setup", graph: graph).execute()
            clock.advance(by: 1.5)
            stuck = GraphTask.delay(seconds: 100, name: "stuck", graph: graph)
        }

        func start() {
            let clock = clock
            for t in [
                GraphTask.delay(seconds: 9, name: "long", graph: graph),
                GraphTask.delay(seconds: 0.004, name: "short", graph: graph), stuck,
            ] { t.execute() }
            GraphTask<Void, Boom>(name: "bad", graph: graph) { _, fail in
                _ = clock.schedule(after: 2) { fail(Boom()) }
            }.execute()
        }

        func cancelStuck() { stuck.cancel() }
    }

    @Test func theProgramsRecordingAndAnAttachedViewersTellTheSameRun() throws {
        let program = try Program()
        defer { program.tmp.remove() }
        let (clock, server, viewed) = (program.clock, program.server, program.viewed)
        // `setup` settled before the viewer attaches: its duration comes from the snapshot.
        let recorder = try GraphRecorder(path: viewed, producer: "taskview attach")
        let session = AttachSession()
        session.record(to: recorder)
        try session.attach(path: server.path)
        var tree = TreeModel()
        #expect(pump(session, &tree, now: 0, until: settled("setup")))
        program.start()
        clock.advance(by: 0.004)
        #expect(pump(session, &tree, now: 0.004, until: settled("short")))
        clock.advance(by: 2)
        #expect(pump(session, &tree, now: 2.004, until: settled("bad")))
        clock.advance(by: 1)
        program.cancelStuck()
        #expect(pump(session, &tree, now: 3.004, until: settled("stuck")))
        clock.advance(by: 6)
        #expect(pump(session, &tree, now: 9.004, until: settled("long")))
        server.stop()
        #expect(pump(session, &tree, now: 9.1) { _ in session.allEnded })
        session.stop()
        recorder.finish()
        program.recording.cancel()

        try compare(own: program.own, viewed: viewed)
        // The live tree the viewer showed agrees too.
        let mine = nodes(replayed(try LogReader.load(path: program.own)))
        for (name, v) in nodes(tree) {
            let d = try #require(mine[name]?.duration, "live \(name)")
            #expect(abs(v.duration - d) < 0.005, "live \(name): \(v.duration) vs \(d)")
        }
        // The program's end is not a drop and a re-add of its tree.
        let text = try String(contentsOfFile: viewed, encoding: .utf8)
        #expect(!text.contains("\"ev\":\"drop\""))
    }

    @Test func aViewerThatFellBehindAndWasResyncedRecordsTheSameRun() throws {
        let program = try Program()
        defer { program.tmp.remove() }
        let (clock, graph, server) = (program.clock, program.graph, program.server)
        // A viewer that stops reading: a tiny receive buffer, nothing read until the end.
        let fd = try UnixSocket.connect(path: server.path).get()
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        // A flood of progress overflows the server's buffer for it; the failure, the cancel
        // and the short node happen while it is behind.
        let count = 300_000
        let flood = GraphTask<Void, Never>(name: "flood", graph: graph) { succeed, _, progress in
            for i in 1...count { progress(TaskProgress(Double(i) / Double(count))) }
            succeed(())
        }
        program.start()
        flood.execute()
        clock.advance(by: 0.004)
        clock.advance(by: 2)
        clock.advance(by: 1)
        program.cancelStuck()
        clock.advance(by: 6)
        // The viewer reads again, everything, up to the program's end.
        let bytes = Mutex<[UInt8]>([])
        let reader = Thread {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                bytes.withLock { $0 += chunk[0..<n] }
            }
        }
        reader.start()
        server.stop()
        while !reader.isFinished { usleep(10_000) }
        close(fd)
        program.recording.cancel()
        // Fed to the attach tree 20 s late, recorded as `taskview attach --record` does.
        let recorder = try GraphRecorder(path: program.viewed, producer: "taskview attach")
        var a = AttachTree()
        a.recorder = recorder
        let p = a.addProgram(name: server.path, pid: nil)
        var tree = TreeModel()
        var stream = LogStream(name: "p")
        var resynced = false
        for item in try stream.feed(bytes.withLock { $0 }) {
            if case .resync = item { resynced = true }
            a.apply(item, program: p, tree: &tree, now: 20)
        }
        a.refreshRows(tree: &tree, now: 20)
        recorder.finish()
        #expect(resynced, "the viewer was never resynced: the test did not test what it says")
        try compare(own: program.own, viewed: program.viewed, extra: ["flood"])
        let text = try String(contentsOfFile: program.viewed, encoding: .utf8)
        #expect(!text.contains("\"ev\":\"drop\""))
    }

    /// Replay, report and exports of the two recordings, node by node.
    func compare(own: String, viewed: String, extra: Set<String> = []) throws {
        let ownLog = try LogReader.load(path: own)
        let viewedLog = try LogReader.load(path: viewed)
        let a = nodes(replayed(ownLog))
        let b = nodes(replayed(viewedLog))
        #expect(Set(a.keys) == Set(["setup", "long", "short", "bad", "stuck"]).union(extra))
        #expect(Set(b.keys) == Set(a.keys))
        for (name, v) in a {
            let w = try #require(b[name], "\(name) missing from the attach recording")
            #expect(w.display == v.display, "\(name)")
            #expect(abs(w.duration - v.duration) < 0.005, "\(name): \(w.duration) vs \(v.duration)")
        }
        #expect(a["setup"]?.duration == 0.5)
        #expect(a["long"]?.display == .succeeded)
        #expect(a["bad"]?.display == .failed)
        #expect(a["stuck"]?.display == .cancelled)
        // Report: counts (program rows not counted), first failure, critical path, slowest.
        let ra = RunReport(tree: replayed(ownLog))
        let rb = RunReport(tree: replayed(viewedLog))
        #expect(rb.counts == ra.counts)
        let (ta, tb) = (replayed(ownLog), replayed(viewedLog))
        #expect(HeadlessSummary.countsLine(tb.counts) == HeadlessSummary.countsLine(ta.counts))
        #expect(ra.counts["failed"] == 1 && ra.counts["cancelled"] == 1 && ra.counts["succeeded"] == 3 + extra.count)
        #expect(rb.firstFailure?.name == "bad" && ra.firstFailure?.name == "bad")
        #expect(abs(rb.duration - ra.duration) < 0.005)
        #expect(rb.slowest.map(\.name) == ra.slowest.map(\.name))
        // Exports: every node of the program's recording, same durations and statuses.
        let ca = try chromeDurations(ownLog)
        let cb = try chromeDurations(viewedLog)
        for (name, d) in ca {
            let e = try #require(cb[name], "chrome: \(name) missing")
            #expect(abs(e - d) < 0.005, "chrome \(name): \(e) vs \(d)")
        }
        let oa = try otlpSpans(ownLog)
        let ob = try otlpSpans(viewedLog)
        #expect(Set(oa.keys).isSubset(of: Set(ob.keys)))
        for (name, (d, code)) in oa {
            let e = try #require(ob[name], "otlp: \(name) missing")
            #expect(abs(e.0 - d) < 0.005, "otlp \(name): \(e.0) vs \(d)")
            #expect(e.1 == code, "otlp \(name) status")
        }
    }
}

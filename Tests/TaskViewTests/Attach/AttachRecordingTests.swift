import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// What an attach session records (`taskview attach --record`): a log that `replay` and
/// `export` read like any other, whatever times the programs' streams carry.
@Suite struct AttachRecordingTests {
    /// One stream per program, as a connection reads it.
    final class Streams {
        var streams: [Int: LogStream] = [:]
    }

    /// The next lines of `program`'s stream, fed to the tree at viewer time `now`.
    func feed(
        _ a: inout AttachTree, _ s: Streams, _ text: String, program: Int, tree: inout TreeModel, now: Double
    ) throws {
        var stream = s.streams[program] ?? LogStream(name: "x")
        defer { s.streams[program] = stream }
        for item in try stream.feed(Array(text.utf8)) { a.apply(item, program: program, tree: &tree, now: now) }
        a.refreshRows(tree: &tree, now: now) // as the session does after each batch
    }

    /// The log an attach session writes for two programs whose lines arrive with different
    /// delays (the first program's snapshot late, its next event early), loaded back.
    func recordTwoPrograms() throws -> (tree: TreeModel, log: ReplayLog, lines: [String]) {
        let path = temporaryLogPath("attach-record")
        defer { unlink(path) }
        var a = AttachTree()
        var tree = TreeModel()
        let recorder = try GraphRecorder(path: path, producer: "taskview attach")
        a.recorder = recorder
        let p = a.addProgram(name: "/s/1.sock", pid: nil)
        let q = a.addProgram(name: "/s/2.sock", pid: nil)
        let s = Streams()
        // Program p: its snapshot (pre-existing work, executing) reaches the viewer 5 s
        // after attaching; its next event 50 ms later on both clocks but with less delay.
        try feed(
            &a, s, AttachLines.header(pid: 1, name: "one") + AttachLines.snapshot(seq: 1, t: 10), program: p,
            tree: &tree, now: 5)
        try feed(
            &a, s, #"{"seq":2,"t":10.1,"ev":"progress","id":1,"fraction":0.75}"# + "\n", program: p, tree: &tree,
            now: 5.05)
        // Program q connects meanwhile: its row's `connected` line is stamped with the viewer's
        // clock, earlier than p's last translated time.
        try feed(
            &a, s, AttachLines.header(pid: 2, name: "two") + AttachLines.snapshot(seq: 1, t: 0.5), program: q,
            tree: &tree, now: 5.06)
        try feed(
            &a, s,
            #"{"seq":3,"t":10.2,"ev":"state","id":1,"state":"completed"}"# + "\n"
                + #"{"seq":4,"t":10.3,"ev":"end","summary":{}}"# + "\n", program: p, tree: &tree, now: 5.1)
        a.closed(program: q, error: nil, tree: &tree, now: 5.2)
        recorder.finish()
        let lines = try readLines(path)
        return (tree, try LogReader.load(path: path), lines)
    }

    @Test func anAttachRecordingWithProgramRowsAndEarlierWorkReplays() throws {
        let (tree, log, lines) = try recordTwoPrograms()
        // Times in the file never go backwards.
        var last = 0.0
        for line in lines.dropFirst() {
            guard let r = line.range(of: ",\"t\":") else { continue }
            let rest = line[r.upperBound...]
            let t = Double(rest.prefix { $0 != "," && $0 != "}" })!
            #expect(t >= last, "\(line)")
            last = max(last, t)
        }
        #expect(log.end != nil)
        // The replay ends where the live session did: same nodes, names and states.
        let final = log.finalSnapshot
        #expect(final.nodes.count == tree.liveCount)
        for id in final.nodes.keys {
            let n = final.nodes[id]!
            #expect(tree.contains(id.rawValue))
            #expect(tree[id.rawValue].name == n.name)
            #expect(tree[id.rawValue].state == n.state)
        }
        #expect(final.roots.map { final.nodes[$0]!.name } == ["one (pid 1)", "two (pid 2)"])
    }

    @Test func anAttachRecordingExports() throws {
        let (_, log, _) = try recordTwoPrograms()
        let json = String(decoding: ChromeTrace.export(log), as: UTF8.self)
        #expect(json.hasPrefix("{") || json.hasPrefix("["))
        #expect(json.contains("\"job a\""))
        #expect(json.contains("\"one (pid 1)"))
    }

    /// Pumps `session` (at viewer time `now`) until `done` or 30 s.
    func pump(_ session: AttachSession, _ tree: inout TreeModel, now: Double, until done: (TreeModel) -> Bool) -> Bool {
        let deadline = AttachLines.monotonic() + 30
        while AttachLines.monotonic() < deadline {
            _ = session.pump(tree: &tree, now: now)
            if done(tree) { return true }
            session.wait(seconds: 0.05)
        }
        return false
    }

    func node(named name: String, in tree: TreeModel) -> Int? {
        tree.nodes.ids.first { tree.nodes[$0].exists && tree.nodes[$0].name == name }
    }

    @Test func workBegunBeforeAttachingKeepsTheProgramsOwnStart() throws {
        // The program: a served graph on a virtual clock; `hash` runs from 1 s to 10 s.
        let tmp = TemporaryDirectory("taskview-start")
        defer { tmp.remove() }
        let dir = tmp.path
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let server = try graph.serve(at: dir + "/1.sock", name: "prog")
        defer { server.stop() }
        let hash = GraphTask.delay(seconds: 9, name: "hash", graph: graph)
        clock.advance(by: 1)
        hash.execute()
        clock.advance(by: 7) // 8 s: the viewer attaches while `hash` has run for 7 s
        // The viewer, recording; its clock starts at 0 when it attaches.
        let path = temporaryLogPath("attach-start")
        defer { unlink(path) }
        let recorder = try GraphRecorder(path: path, producer: "taskview attach")
        let session = AttachSession()
        session.record(to: recorder)
        try session.attach(path: server.path)
        var tree = TreeModel()
        #expect(
            pump(session, &tree, now: 0) { t in node(named: "hash", in: t).map { t[$0].state == .executing } ?? false })
        let live = try #require(node(named: "hash", in: tree))
        #expect(abs(tree[live].startedAt - -7) < 0.5) // the row shows 7 s of work, not 0
        clock.advance(by: 2) // `hash` ends at 10 s, 2 s after attaching
        #expect(pump(session, &tree, now: 2) { t in t[live].state == .completed })
        #expect(abs(tree[live].endedAt - tree[live].startedAt - 9) < 0.5)
        session.stop()
        recorder.finish()
        // The recording gives the same duration: replayed, and exported.
        let log = try LogReader.load(path: path)
        var replayed = TreeModel()
        for e in log.events { replayed.absorb(e) }
        let r = try #require(node(named: "hash", in: replayed))
        #expect(abs(replayed[r].endedAt - replayed[r].startedAt - 9) < 0.5)
        let json = String(decoding: ChromeTrace.export(log), as: UTF8.self)
        let entry = try #require(json.split(separator: "}").first { $0.contains("\"name\":\"hash") })
        let dur = entry.split(separator: ",").first { $0.hasPrefix("\"dur\":") }.flatMap { Double($0.dropFirst(6)) }
        #expect(abs((dur ?? 0) / 1e6 - 9) < 0.5, "\(entry)")
    }
}

import Testing

@testable import TaskGraph
@testable import TaskViewCore

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
}

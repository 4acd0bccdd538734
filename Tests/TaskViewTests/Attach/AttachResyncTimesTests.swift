import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// A resync snapshot (a viewer that fell behind) and the program's final snapshot bring the
/// tree up to date without dropping it: rows keep their ids and times, outcomes missed
/// meanwhile are recorded when they happened (truth.md).
@Suite struct AttachResyncTimesTests {
    func feed(_ a: inout AttachTree, _ stream: inout LogStream, _ text: String, tree: inout TreeModel, now: Double)
        throws
    {
        for item in try stream.feed(Array(text.utf8)) { a.apply(item, program: 0, tree: &tree, now: now) }
    }

    func row(_ name: String, _ tree: TreeModel) -> Int? {
        tree.nodes.ids.first { tree.contains($0) && tree[$0].name == name }
    }

    @Test func aResyncKeepsRowsAndRecordsMissedOutcomesAtTheirOwnTimes() throws {
        let path = temporaryLogPath("attach-resync")
        defer { unlink(path) }
        var a = AttachTree()
        var tree = TreeModel()
        let recorder = try GraphRecorder(path: path, producer: "taskview attach")
        a.recorder = recorder
        _ = a.addProgram(name: "/s/1.sock", pid: nil)
        var stream = LogStream(name: "x")
        // Attached at program time 1 (viewer 0): `done` ran from 0.2 to 0.7 before that.
        try feed(
            &a, &stream,
            AttachLines.header()
                + AttachLines.snapshot(
                    seq: 1, t: 1,
                    extra:
                        #",{"id":3,"kind":"task","name":"done","weight":1,"state":"completed","started":0.2,"ended":0.7}"#
                ),
            tree: &tree, now: 0)
        let jobA = try #require(row("job a", tree))
        let done = try #require(row("done", tree))
        #expect(abs(tree[done].endedAt - tree[done].startedAt - 0.5) < 1e-9)
        // The viewer falls behind; at program time 9 it gets a resync and a snapshot (read at
        // viewer time 20): job a failed at 4, job b ran 2...3 and was cancelled, a new node
        // `late` ran 5...6, and `done` is gone (the program dropped it).
        let resync =
            #"{"seq":900,"t":9,"ev":"resync","skipped":880}"# + "\n"
            + #"{"seq":901,"t":9,"ev":"snapshot","part":1,"parts":1,"nodes":["#
            + #"{"id":0,"kind":"concurrent","name":"root","weight":1,"state":"executing","fraction":0.25,"started":0.1},"#
            + #"{"id":1,"kind":"task","parent":0,"index":0,"name":"job a","weight":1,"state":"completed","failed":true,"message":"boom","started":0.5,"ended":4},"#
            + #"{"id":2,"kind":"task","parent":0,"index":1,"name":"job b","weight":1,"state":"cancelled","started":2,"ended":3},"#
            + #"{"id":4,"kind":"task","parent":0,"index":2,"name":"late","weight":1,"state":"completed","started":5,"ended":6}"#
            + "]}\n"
        try feed(&a, &stream, resync, tree: &tree, now: 20)
        #expect(row("job a", tree) == jobA) // the same row
        #expect(tree[jobA].display == .failed)
        #expect(abs(tree[jobA].endedAt - 3) < 1e-9) // program 4 = viewer 3
        let jobB = try #require(row("job b", tree))
        #expect(tree[jobB].display == .cancelled)
        #expect(abs(tree[jobB].endedAt - tree[jobB].startedAt - 1) < 1e-9)
        let late = try #require(row("late", tree))
        #expect(abs(tree[late].endedAt - tree[late].startedAt - 1) < 1e-9)
        #expect(row("done", tree) == nil)
        // The program ends: its final snapshot changes nothing that did not change.
        try feed(
            &a, &stream,
            #"{"seq":902,"t":9.5,"ev":"snapshot","part":1,"parts":1,"nodes":["#
                + #"{"id":0,"kind":"concurrent","name":"root","weight":1,"state":"completed","started":0.1,"ended":9.5},"#
                + #"{"id":1,"kind":"task","parent":0,"index":0,"name":"job a","weight":1,"state":"completed","failed":true,"message":"boom","started":0.5,"ended":4},"#
                + #"{"id":2,"kind":"task","parent":0,"index":1,"name":"job b","weight":1,"state":"cancelled","started":2,"ended":3},"#
                + #"{"id":4,"kind":"task","parent":0,"index":2,"name":"late","weight":1,"state":"completed","started":5,"ended":6}"#
                + "]}\n" + #"{"seq":903,"t":9.5,"ev":"end","summary":{}}"# + "\n",
            tree: &tree, now: 21)
        recorder.finish()
        // The recording: only `done` dropped (the program's own drop), and a replay gives the
        // same durations as the live tree.
        let lines = try readLines(path)
        let drops = lines.filter { $0.contains("\"ev\":\"drop\"") }
        #expect(drops.count == 1)
        #expect(drops.first?.contains("[\(done)]") == true, "\(drops)")
        let log = try LogReader.load(path: path)
        var replayed = TreeModel()
        for e in log.events { replayed.absorb(e) }
        for name in ["root", "job a", "job b", "late"] {
            let l = try #require(row(name, tree))
            let r = try #require(row(name, replayed))
            #expect(replayed[r].display == tree[l].display, "\(name)")
            #expect(abs(replayed[r].startedAt - tree[l].startedAt) < 1e-6, "\(name) start")
            #expect(abs(replayed[r].endedAt - tree[l].endedAt) < 1e-6, "\(name) end")
        }
    }
}

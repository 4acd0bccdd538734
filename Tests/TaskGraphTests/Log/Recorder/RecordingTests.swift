import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of the log at `path` (the last one empty when the log ends with a newline).
private func recordedLines(_ path: String) throws -> [String] {
    let bytes = try LogReader.readFile(path)
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
        String.init)
}

/// Events of a small made-up graph, in the shapes the library emits.
func handMadeEvents() -> [GraphEvent] {
    var seq: UInt64 = 0
    func e(_ t: Double, _ c: GraphChange) -> GraphEvent {
        seq += 1
        return GraphEvent(sequence: seq, time: t, change: c)
    }
    return [
        e(
            0,
            .added(id: NodeID(0), kind: "task", name: "a \"quoted\"\n\u{1B}[31mred", weight: 1, parent: nil, index: nil)
        ),
        e(0, .added(id: NodeID(1), kind: "task", name: "b ✓", weight: 2.5, parent: nil, index: nil)),
        e(0, .added(id: NodeID(2), kind: "sequential", name: "seq", weight: 1, parent: nil, index: nil)),
        e(0, .parentSet(id: NodeID(1), parent: NodeID(2), index: 0)),
        e(0, .parentSet(id: NodeID(0), parent: NodeID(2), index: 1)),
        e(0, .stateChanged(id: NodeID(2), state: .executing, failed: false, message: nil)),
        e(0.1, .stateChanged(id: NodeID(1), state: .executing, failed: false, message: nil)),
        e(0.2, .progress(id: NodeID(1), progress: TaskProgress(0.3, info: "Downloading"))),
        e(0.30000000000000004, .progress(id: NodeID(2), progress: TaskProgress(0.1))),
        e(1, .weightChanged(id: NodeID(0), weight: 0)),
        e(1.5, .stateChanged(id: NodeID(1), state: .completed, failed: true, message: "boom\t1")),
        e(1.5, .cancelRequested(id: NodeID(2), source: "keyboard")),
        e(1.5, .stateChanged(id: NodeID(2), state: .cancelled, failed: false, message: nil)),
        e(2, .added(id: NodeID(3), kind: "retry", name: "r", weight: 1, parent: NodeID(2), index: 0)),
        e(2, .dropped(ids: [NodeID(3)])),
    ]
}

@Suite struct RecordingTests {
    @Test func linesFollowTheFormatExactly() throws {
        let tmp = TemporaryDirectory("taskgraph-recording")
        defer { tmp.remove() }
        let path = tmp.file("format.jsonl")
        let r = try GraphRecorder(path: path, producer: "test", scenario: "demo", seed: 7)
        for e in handMadeEvents().prefix(9) { r.record(e) }
        r.recordKey("x", node: NodeID(2))
        r.finish()
        let lines = try recordedLines(path)
        #expect(lines[0].hasPrefix("{\"format\":\"taskgraph-log\",\"version\":1,\"created\":\""))
        #expect(lines[0].hasSuffix("\"producer\":\"test\",\"scenario\":\"demo\",\"seed\":7}"))
        #expect(
            lines[1]
                == #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"a \"quoted\"\n\u001b[31mred","weight":1}"#)
        #expect(lines[2] == #"{"seq":2,"t":0,"ev":"add","id":1,"kind":"task","name":"b ✓","weight":2.5}"#)
        #expect(lines[4] == #"{"seq":4,"t":0,"ev":"parent","id":1,"parent":2,"index":0}"#)
        #expect(lines[6] == #"{"seq":6,"t":0,"ev":"state","id":2,"state":"executing"}"#)
        #expect(lines[8] == #"{"seq":8,"t":0.2,"ev":"progress","id":1,"fraction":0.3,"info":"Downloading"}"#)
        #expect(lines[9] == #"{"seq":9,"t":0.30000000000000004,"ev":"progress","id":2,"fraction":0.1}"#)
        #expect(lines[10] == #"{"seq":10,"t":0.30000000000000004,"ev":"key","key":"x","id":2}"#)
        #expect(
            lines[11].hasPrefix(
                #"{"seq":11,"t":0.30000000000000004,"ev":"snapshot","part":1,"parts":1,"nodes":[{"id":0,"kind":"task","parent":2,"index":1,"name":"#
            ))
        #expect(
            lines[12]
                == #"{"seq":12,"t":0.30000000000000004,"ev":"end","summary":{"succeeded":0,"failed":0,"cancelled":0,"skipped":0,"notExecuted":1,"executing":2,"duration":0.30000000000000004,"outcome":"unfinished"}}"#
        )
        #expect(lines[13] == "")
        #expect(lines.count == 14)
    }

    @Test func failedStateCancelAndDropLines() throws {
        let tmp = TemporaryDirectory("taskgraph-recording")
        defer { tmp.remove() }
        let path = tmp.file("kinds.jsonl")
        let r = try GraphRecorder(path: path, producer: "p")
        for e in handMadeEvents() { r.record(e) }
        r.finish()
        let lines = try recordedLines(path)
        #expect(lines[10] == #"{"seq":10,"t":1,"ev":"weight","id":0,"weight":0}"#)
        #expect(
            lines[11]
                == #"{"seq":11,"t":1.5,"ev":"state","id":1,"state":"completed","failed":true,"message":"boom\t1"}"#)
        #expect(lines[12] == #"{"seq":12,"t":1.5,"ev":"cancel","id":2,"source":"keyboard"}"#)
        #expect(
            lines[14]
                == #"{"seq":14,"t":2,"ev":"add","id":3,"kind":"retry","name":"r","weight":1,"parent":2,"index":0}"#)
        #expect(lines[15] == #"{"seq":15,"t":2,"ev":"drop","ids":[3]}"#)
        #expect(lines[17].contains(#""outcome":"cancelled""#))
        #expect(lines[17].contains(#""failed":1"#))
    }

    @Test func aRecorderDroppedWithoutFinishWritesWhatItWasGiven() throws {
        let tmp = TemporaryDirectory("taskgraph-recording")
        defer { tmp.remove() }
        let path = tmp.file("dropped.jsonl")
        do {
            let r = try GraphRecorder(path: path, producer: "p")
            for e in handMadeEvents() { r.record(e) }
        } // no `finish()`: a test that threw, a program that forgot
        let lines = try recordedLines(path)
        #expect(lines.contains(#"{"seq":12,"t":1.5,"ev":"cancel","id":2,"source":"keyboard"}"#))
    }

    @Test func periodicSnapshotsAreSplitUnderTheLineCap() throws {
        var model = LogModel()
        for i in 0..<3000 {
            model.apply(
                .added(
                    id: NodeID(i), kind: "task", name: String(repeating: "n", count: 300),
                    weight: 1, parent: nil, index: nil))
        }
        var out = LogBuffer()
        let next = model.writeSnapshot(into: &out, seq: 2, t: 1.25)
        let lines = String(decoding: out.bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == Int(next - 2))
        #expect(lines.count == 2)
        for (i, l) in lines.enumerated() {
            #expect(l.utf8.count <= LogModel.maxSnapshotLineBytes)
            #expect(l.hasPrefix("{\"seq\":\(2 + i),\"t\":1.25,\"ev\":\"snapshot\",\"part\":\(i + 1),\"parts\":2,"))
        }
        let log = try LogReader.parse(
            Array(("{\"format\":\"taskgraph-log\",\"version\":1}\n").utf8)
                + Array(
                    ("{\"seq\":1,\"t\":0,\"ev\":\"add\",\"id\":9999,\"kind\":\"task\",\"name\":\"x\",\"weight\":1}\n")
                        .utf8)
                + Array(lines.joined(separator: "\n").utf8) + [10], name: "mem")
        // The snapshot replaced the state: node 9999 was not in it.
        #expect(log.finalSnapshot.nodes.count == 3000)
    }

    @Test func snapshotIsWrittenAfterMaxOfNAndFourTimesNodes() throws {
        let tmp = TemporaryDirectory("taskgraph-recording")
        defer { tmp.remove() }
        let path = tmp.file("periodic.jsonl")
        let r = try GraphRecorder(path: path, producer: "p", snapshotEvery: 10)
        var seq: UInt64 = 0
        for i in 0..<5 {
            seq += 1
            r.record(
                GraphEvent(
                    sequence: seq, time: 0,
                    change: .added(
                        id: NodeID(i), kind: "task", name: "n",
                        weight: 1, parent: nil, index: nil)))
        }
        for _ in 0..<40 {
            seq += 1
            r.record(GraphEvent(sequence: seq, time: 0, change: .progress(id: NodeID(0), progress: TaskProgress(0.5))))
        }
        r.abandon()
        let lines = try recordedLines(path)
        let snapshots = lines.enumerated().filter { $0.element.contains("\"ev\":\"snapshot\"") }.map(\.offset)
        // 5 nodes: every max(10, 20) = 20 events.
        #expect(snapshots == [21, 42])
    }
}

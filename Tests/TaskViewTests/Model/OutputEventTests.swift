import TaskGraph
import Testing

@testable import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// `output` events (a command's lines): graph → log line → replay reader → dashboard model.
@Suite struct OutputEventTests {
    @Test func graphReportsOutputOnlyForKnownNodesAndCutsIt() {
        let g = Graph(clock: VirtualClock())
        let log = EventLog()
        let obs = g.observe { log.append($0) }
        defer { obs.cancel() }
        let t = GraphTask<Int, Never>(name: "cmd", graph: g) { _, _ in }
        g.reportOutput(t.id, stream: .stderr, text: String(repeating: "é", count: 3000))
        g.reportOutput(NodeID(99), stream: .stdout, text: "nobody")
        let outs = log.all.compactMap { e -> (OutputStreamName, String)? in
            if case .output(_, let s, let text) = e.change { return (s, text) } else { return nil }
        }
        #expect(outs.count == 1)
        #expect(outs.first?.0 == .stderr)
        #expect(outs.first?.1.utf8.count == 4096)
    }

    @Test func outputLinesAreWrittenAndReadBack() throws {
        let path = temporaryLogPath("output")
        defer { unlink(path) }
        let r = try GraphRecorder(path: path, producer: "test", scenario: nil, seed: nil)
        r.record(
            GraphEvent(
                sequence: 1, time: 0,
                change: .added(id: NodeID(0), kind: "task", name: "c", weight: 1, parent: nil, index: nil)))
        r.record(
            GraphEvent(sequence: 2, time: 0.5, change: .output(id: NodeID(0), stream: .stdout, text: "[1/3] a \"b\"")))
        r.record(
            GraphEvent(sequence: 3, time: 0.75, change: .output(id: NodeID(0), stream: .stderr, text: "\u{1B}[31merr")))
        r.finish()
        let lines = try readLines(path)
        #expect(lines[2] == #"{"seq":2,"t":0.5,"ev":"output","id":0,"stream":"stdout","text":"[1/3] a \"b\""}"#)
        #expect(lines[3] == #"{"seq":3,"t":0.75,"ev":"output","id":0,"stream":"stderr","text":"\u001b[31merr"}"#)
        let log = try LogReader.load(path: path)
        var tree = TreeModel()
        tree.absorb(log.events)
        #expect(
            tree.outputs[0]?.lines == [
                .init(stream: .stdout, text: "[1/3] a \"b\""),
                .init(stream: .stderr, text: "\u{1B}[31merr"),
            ])
    }

    @Test func badStreamIsABadLine() {
        let text = """
            {"format":"taskgraph-log","version":1,"created":"x","producer":"p"}
            {"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"c","weight":1}
            {"seq":2,"t":0,"ev":"output","id":0,"stream":"stdin","text":"x"}

            """
        #expect(throws: (any Error).self) { try LogReader.parse(Array(text.utf8), name: "bad.jsonl") }
    }

    @Test func ringKeepsTheLast200Lines() {
        var ring = OutputRing()
        for i in 0..<1000 { ring.append(.init(stream: .stdout, text: "\(i)")) }
        #expect(ring.count == 200)
        #expect(ring.total == 1000)
        #expect(ring.lines.first?.text == "800")
        #expect(ring.lines.last?.text == "999")
    }
}

@Suite struct OutputDetailTests {
    @Test func detailPaneListsACommandsOutputSanitized() {
        var tree = TreeModel()
        tree.absorb(
            GraphEvent(
                sequence: 1, time: 0,
                change: .added(id: NodeID(0), kind: "task", name: "c", weight: 1, parent: nil, index: nil)))
        tree.absorb(GraphEvent(sequence: 2, time: 0, change: .output(id: NodeID(0), stream: .stdout, text: "[1/2] a")))
        tree.absorb(
            GraphEvent(sequence: 3, time: 0, change: .output(id: NodeID(0), stream: .stderr, text: "bad \u{1B}[2J")))
        let d = DisplayTree(tree: tree, view: ViewState(), mask: nil)
        let lines = Renderer(ascii: false).detailLines(tree, d, row: 0)
        #expect(Array(lines.suffix(3)) == ["Output (last 2 of 2 lines):", "  [1/2] a", "! bad ?[2J"])
    }
}

import Foundation
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// A node renamed after it was added (a span whose operation name changed): the `name` line
/// of the replay log, read back, replayed at a time before and after it, exported, and
/// applied by the dashboard model (docs/log-format.md "Renames").
@Suite struct RenameLogTests {
    /// A recorded graph: node 0 added as `GET`, renamed `GET /users/:id` at t=1, completed at
    /// t=2.
    static func recordedLog() throws -> (ReplayLog, [String]) {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let path = temporaryLogPath("rename")
        defer { unlink(path) }
        let recording = try g.record(to: path, producer: "rename")
        let task = GraphTask<Int, Never>(name: "GET", graph: g) { _, succeed, _, _ in
            _ = clock.schedule(after: 2) { succeed(1) }
        }
        task.execute()
        clock.advance(by: 1)
        g.rename(task.id, to: "GET /users/:id")
        g.rename(task.id, to: "GET /users/:id") // the same name: no line
        clock.advance(by: 1)
        recording.cancel()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try LogReader.load(path: path), text.split(separator: "\n").map(String.init))
    }

    @Test func theRenameIsOneNameLineReadBackAsRenamed() throws {
        let (log, lines) = try Self.recordedLog()
        let names = lines.filter { $0.contains(#""ev":"name""#) }
        #expect(names.count == 1)
        #expect(names.first?.hasSuffix(#""t":1,"ev":"name","id":0,"name":"GET /users/:id"}"#) == true)
        let renames = log.events.compactMap { e -> String? in
            if case .renamed(let id, let name) = e.change { return "\(id.rawValue) \(name) at \(e.time)" }
            return nil
        }
        #expect(renames == ["0 GET /users/:id at 1.0"])
        // The final snapshot carries the new name.
        #expect(lines.contains { $0.contains(#""ev":"snapshot""#) && $0.contains(#""name":"GET /users/:id""#) })
        #expect(log.finalModel.nodes.first { $0.id == 0 }?.name == "GET /users/:id")
    }

    @Test func replayShowsTheNameOfTheMomentSeekingBothWays() throws {
        let (log, _) = try Self.recordedLog()
        let source = ReplaySource(log: log, title: "replay")
        var m = DashboardModel(title: "replay")
        source.start(model: &m)
        source.seek(to: 0.5, model: &m)
        #expect(m.tree[0].name == "GET")
        source.seek(to: 1.5, model: &m)
        #expect(m.tree[0].name == "GET /users/:id")
        source.seek(to: 0.5, model: &m)
        #expect(m.tree[0].name == "GET")
        source.seek(to: log.duration, model: &m)
        #expect(m.tree[0].name == "GET /users/:id")
    }

    @Test func exportsNameTheNodeByItsLatestName() throws {
        let (log, _) = try Self.recordedLog()
        let chrome = String(decoding: ChromeTrace.export(log), as: UTF8.self)
        #expect(chrome.contains(#""name":"GET /users/:id""#))
        #expect(!chrome.contains(#""name":"GET""#))
        let otlp = String(decoding: OTLPTrace.export(log), as: UTF8.self)
        #expect(otlp.contains(#""name":"GET /users/:id""#))
        #expect(!otlp.contains(#""name":"GET""#))
    }

    @Test func theDashboardModelTakesTheNameSanitizedAndTheFilterFindsIt() {
        var m = DashboardModel(title: "t")
        m.tree.absorb([
            GraphEvent(
                sequence: 1, time: 0,
                change: .added(id: NodeID(0), kind: "span", name: "GET", weight: 1, parent: nil, index: nil)),
            GraphEvent(
                sequence: 2, time: 0,
                change: .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil)),
        ])
        m.view.filter = "users"
        m.refreshDerived()
        #expect(m.displayTree().first() == nil)
        m.tree.absorb(GraphEvent(sequence: 3, time: 1, change: .renamed(id: NodeID(0), name: "GET /users\u{1B}[2J")))
        m.tree.absorb(GraphEvent(sequence: 4, time: 1, change: .renamed(id: NodeID(7), name: "nobody")))
        #expect(m.tree[0].name == Sanitizer.clean("GET /users\u{1B}[2J"))
        #expect(!m.tree[0].name.contains("\u{1B}"))
        #expect(!m.tree.contains(7))
        // The filter is worked out again: the renamed node now matches.
        #expect(m.displayTree().first() == 0)
    }

    @Test func attachTranslatesTheRenamedNodeToItsLocalId() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        let text =
            AttachLines.header() + AttachLines.snapshot(seq: 1, base: 5)
            + #"{"seq":2,"t":2,"ev":"name","id":6,"name":"job a renamed"}"# + "\n"
        try a.apply(text, program: p, tree: &tree)
        let root = Int(tree[tree.roots[0]].children[0])
        let kids = tree[root].children.map { Int($0) }
        #expect(kids.map { tree[$0].name } == ["job a renamed", "job b"])
    }

    @Test func aNameLineMustNameAnExistingNodeAndCarryAName() throws {
        let path = temporaryLogPath("name")
        defer { unlink(path) }
        let header = #"{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"t"}"#
        let add = #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"span","name":"s","weight":1}"#
        for bad in [#"{"seq":2,"t":0,"ev":"name","id":3,"name":"x"}"#, #"{"seq":2,"t":0,"ev":"name","id":0}"#] {
            try [header, add, bad, ""].joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: LogLoadError.self) { try LogReader.load(path: path) }
        }
        let good = #"{"seq":2,"t":0,"ev":"name","id":0,"name":"t"}"#
        try [header, add, good, ""].joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try LogReader.load(path: path).finalModel.nodes.map(\.name) == ["t"])
    }
}

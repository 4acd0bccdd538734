import TaskGraph
import Testing

@testable import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// `ref` nodes (docs/log-format.md): the dashboard row is a link to the shared node,
/// Enter jumps there; the `ref` event survives a log round trip and an attach translation.
@Suite struct SharedRefTests {
    /// then#1 > fetch user#0 ; then#2 > ref#3 (of #0), b#4. The shared name is hostile.
    static func script() -> EventScript {
        var s = EventScript()
        s.add(0, "fetch user\u{1B}[2J")
        s.add(1, "a", kind: "then")
        s.adopt(0, by: 1, at: 0)
        s.add(2, "b", kind: "then")
        s.add(3, "fetch user\u{1B}[2J", kind: "ref", parent: 2)
        s.emit(.ref(id: NodeID(3), of: NodeID(0)))
        s.add(4, "next", parent: 2)
        s.start(1)
        s.start(0)
        s.start(2)
        s.start(3)
        return s
    }

    @Test func aRefRowReadsAsALinkToTheSharedNode() {
        var m = model(Self.script())
        let rows = frame(&m, 40, 8)
        #expect(rows[1] == "* a                            0%   0.0s")
        #expect(rows[2] == "`- * fetch user?[2J            0%   0.0s")
        #expect(rows[3] == "* b                            0%   0.0s")
        #expect(rows[4] == "|- * -> fetch user?[2J #0      0%   0.0s")
        #expect(rows[5] == "`- o next                      0%")
        for r in rows { #expect(!r.unicodeScalars.contains { $0.value < 0x20 }) }
    }

    @Test func enterOnARefRowSelectsTheSharedNodeInsteadOfOpeningTheDetailPane() {
        var m = model(Self.script())
        m.view.setCollapsed(1, true) // the shared node's row is hidden
        m.view.selection = 3
        #expect(press(&m, .enter).isEmpty)
        #expect(m.view.selection == 0)
        #expect(!m.view.detailOpen)
        #expect(m.view.isExpanded(1))
        #expect(m.displayTree().isVisible(0))
        // On any other row Enter opens the detail pane as before.
        press(&m, .enter)
        #expect(m.view.detailOpen)
    }

    @Test func enterOnARefWhoseSharedNodeIsGoneOpensTheDetailPane() {
        var s = Self.script()
        s.emit(.dropped(ids: [NodeID(1), NodeID(0)]))
        var m = model(s)
        m.view.selection = 3
        press(&m, .enter)
        #expect(m.view.selection == 3)
        #expect(m.view.detailOpen)
    }

    @Test func refEventRoundTripsThroughTheLog() throws {
        let run = try recordGraph("ref") { g, clock in
            let user = GraphTask<Int, Never>(name: "fetch user", graph: g) { task, succeed, _, progress in
                _ = clock.schedule(after: 1) { progress(TaskProgress(0.5)) }
                _ = clock.schedule(after: 2) { succeed(7) }
            }
            let a = user.mapResult { $0 + 1 }
            let b = user.then { v in GraphTask<Int, Never>.succeed(v * 2, graph: g) }
            GraphTask.concurrent([a, b], graph: g).execute()
            return (user: user.id, b: b.id)
        }
        let (g, lines, log, user, b) = (run.graph, run.lines, run.log, run.value.user, run.value.b)
        let refID = g.snapshot()[b]!.children[0]
        #expect(lines.contains { $0.hasSuffix(#""ev":"ref","id":\#(refID.rawValue),"of":\#(user.rawValue)}"#) })
        // The final snapshot line carries it too.
        #expect(lines.contains { $0.contains(#""ev":"snapshot""#) && $0.contains(#""of":\#(user.rawValue)}"#) })
        #expect(log.finalSnapshot.nodes == g.snapshot().nodes)
        #expect(log.finalSnapshot[refID]?.refOf == user)
        // Seeking before the end rebuilds it from events too.
        let mid = log.snapshot(afterEvents: log.events.count - 1)
        #expect(mid[refID]?.refOf == user)
        var tree = TreeModel()
        tree.absorb(log.rebuildEvents(afterEvents: log.events.count))
        #expect(tree[refID.rawValue].refOf == Int32(user.rawValue))
    }

    @Test func exportsShowARefAsASliceOrSpanNamingTheSharedNode() throws {
        let run = try recordGraph("refexport") { g, clock in
            let user = GraphTask<Int, Never>(name: "fetch user", graph: g) { _, succeed, _, _ in
                _ = clock.schedule(after: 1) { succeed(7) }
            }
            let a = user.mapResult { $0 + 1 }
            let b = user.mapResult { $0 + 2 }
            GraphTask.concurrent([a, b], graph: g).execute()
            return (user: user.id.rawValue, b: b.id.rawValue)
        }
        let (user, b) = run.value
        let refID = run.graph.snapshot()[NodeID(b)]!.children[0].rawValue
        let chrome = String(decoding: ChromeTrace.export(run.log), as: UTF8.self)
        #expect(chrome.contains(#""cat":"ref","ph":"X""#))
        #expect(chrome.contains(#""args":{"id":\#(refID),"state":"succeeded","parent":\#(b),"of":\#(user)}"#))
        let otlp = String(decoding: OTLPTrace.export(run.log), as: UTF8.self)
        #expect(otlp.contains(#"{"key":"taskgraph.ref.of","value":{"intValue":"\#(user)"}}"#))
    }

    @Test func aRefEventWithABadOfIsABadLine() throws {
        let path = temporaryLogPath("refbad")
        defer { unlink(path) }
        let text = """
            {"format":"taskgraph-log","version":1,"created":"x","producer":"p"}
            {"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"s","weight":1}
            {"seq":2,"t":0,"ev":"ref","id":0,"of":-3}

            """
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(throws: LogLoadError.self) { try LogReader.load(path: path) }
    }

    @Test func attachTranslatesRefsToLocalIdsFromSnapshotsAndEvents() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        // Snapshot: node 3 is a ref of node 1 ("job a"); then an event adds ref 4 of node 2.
        let text =
            AttachLines.header()
            + AttachLines.snapshot(
                seq: 1,
                extra:
                    #",{"id":3,"kind":"ref","parent":0,"index":2,"name":"job a","weight":1,"state":"executing","of":1}"#
            )
            + #"{"seq":2,"t":2,"ev":"add","id":4,"kind":"ref","name":"job b","weight":1,"parent":0,"index":3}"# + "\n"
            + #"{"seq":3,"t":2,"ev":"ref","id":4,"of":2}"# + "\n"
        try a.apply(text, program: p, tree: &tree)
        let root = Int(tree[tree.roots[0]].children[0])
        let kids = tree[root].children.map { Int($0) }
        #expect(kids.count == 4)
        #expect(tree[kids[2]].refOf == Int32(kids[0]))
        #expect(tree[kids[3]].refOf == Int32(kids[1]))
        var m = DashboardModel(title: "t")
        m.tree = tree
        m.fixSelection()
        let rows = frame(&m, 50, 9)
        #expect(rows.contains { $0.contains("-> job a #\(kids[0])") })
        #expect(rows.contains { $0.contains("-> job b #\(kids[1])") })
    }

    @Test func theHeadlessSummaryNamesTheSharedNodeOfARef() {
        var printer = HeadlessPrinter()
        for e in Self.script().events { _ = printer.absorb(e) }
        let lines = printer.summary()
        #expect(lines.contains { $0.hasSuffix("#3 -> fetch user?[2J #0: executing") })
    }
}

import Foundation
import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// Scope and span nodes and span attributes in the replay log, its exports and the detail
/// pane (docs/log-format.md "Scopes and spans").
@Suite struct ScopeSpanLogTests {
    /// A recorded graph: a scope whose child the graph cancels, and a span-like node with
    /// attributes (as `GraphTracer` records them).
    static func recordedLog() async throws -> (ReplayLog, [String]) {
        let g = Graph(clock: VirtualClock())
        let path = temporaryLogPath("scopes")
        defer { unlink(path) }
        let recording = try g.record(to: path, producer: "scopes")
        await withGraphTask("request", graph: g) { scope in
            g.setAttributes(
                scope.id, [NodeAttribute("http.method", "GET"), NodeAttribute("http.target", "/slow\u{1B}[2J")])
            try? await withGraphTask("step") { step in
                g.cancel(step.id)
                try await Task.sleep(for: .seconds(1000))
            }
        }
        recording.cancel()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try LogReader.load(path: path), text.split(separator: "\n").map(String.init))
    }

    @Test func scopeKindAndAttributesAreWrittenAndReadBack() async throws {
        let (log, lines) = try await Self.recordedLog()
        #expect(lines.contains { $0.contains(#""ev":"add","id":0,"kind":"scope","name":"request""#) })
        #expect(
            lines.contains {
                $0.hasSuffix(#""ev":"attrs","id":0,"attrs":{"http.method":"GET","http.target":"/slow\u001b[2J"}}"#)
            })
        // The final snapshot carries them too, so a seek past it keeps them.
        #expect(lines.contains { $0.contains(#""attrs":{"http.method":"GET""#) && $0.contains(#""ev":"snapshot""#) })
        let attrs = log.events.compactMap { e -> [NodeAttribute]? in
            if case .attributes(NodeID(0), let a) = e.change { return a } else { return nil }
        }
        #expect(attrs == [[NodeAttribute("http.method", "GET"), NodeAttribute("http.target", "/slow\u{1B}[2J")]])
        let root = log.finalModel.nodes.first { $0.id == 0 }
        #expect(root?.kind == "scope")
        #expect(root?.attributes.map(\.key) == ["http.method", "http.target"])
        let step = log.finalModel.nodes.first { $0.name == "step" }
        #expect(step?.state == .cancelled)
    }

    @Test func exportsCarryTheAttributes() async throws {
        let (log, _) = try await Self.recordedLog()
        let chrome = String(decoding: ChromeTrace.export(log), as: UTF8.self)
        #expect(chrome.contains(#""cat":"scope""#))
        #expect(chrome.contains(#""http.method":"GET""#))
        let otlp = String(decoding: OTLPTrace.export(log), as: UTF8.self)
        #expect(otlp.contains(#"{"key":"http.method","value":{"stringValue":"GET"}}"#))
        #expect(otlp.contains(#"{"key":"taskgraph.kind","value":{"stringValue":"scope"}}"#))
    }

    @Test func theDetailPaneShowsAttributesSanitizedAndWhoCancelledAScope() async throws {
        let (log, _) = try await Self.recordedLog()
        var tree = TreeModel()
        for e in log.events { tree.absorb(e) }
        let d = DisplayTree(tree: tree, view: ViewState(), mask: nil)
        let r = Renderer(ascii: false)
        let request = r.detailLines(tree, d, row: 0)
        #expect(Array(request.suffix(3)) == ["Attributes:", "  http.method = GET", "  http.target = /slow?[2J"])
        let stepID = log.finalModel.nodes.first { $0.name == "step" }!.id
        let step = r.detailLines(tree, d, row: RowIndex(Int(stepID)))
        #expect(step.contains("Swift: cancelled from the graph (graph); its Swift work was cancelled"))
    }

    @Test func aScopeCancelledByItsProgramSaysSo() {
        var tree = TreeModel()
        let events: [GraphChange] = [
            .added(id: NodeID(0), kind: "scope", name: "s", weight: 1, parent: nil, index: nil),
            .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil),
            .cancelRequested(id: NodeID(0), source: "task"),
            .stateChanged(id: NodeID(0), state: .cancelled, failed: false, message: nil),
        ]
        for (i, c) in events.enumerated() { tree.absorb(GraphEvent(sequence: UInt64(i + 1), time: 0, change: c)) }
        let d = DisplayTree(tree: tree, view: ViewState(), mask: nil)
        let lines = Renderer(ascii: false).detailLines(tree, d, row: 0)
        #expect(lines.last == "Swift: cancelled by its own program (its task was cancelled)")
    }

    @Test func aReaderRefusesTooManyAttributes() throws {
        let path = temporaryLogPath("attrs")
        defer { unlink(path) }
        let many = (0..<33).map { "\"k\($0)\":\"v\"" }.joined(separator: ",")
        let text = """
            {"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"t"}
            {"seq":1,"t":0,"ev":"add","id":0,"kind":"span","name":"s","weight":1}
            {"seq":2,"t":0,"ev":"attrs","id":0,"attrs":{\(many)}}

            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: LogLoadError.self) { try LogReader.load(path: path) }
    }
}

/// taskview's cancel prompt on a span names the scope a cancel reaches, or says read-only.
@Suite struct SpanCancelPromptTests {
    static func tree(_ changes: [GraphChange]) -> TreeModel {
        var tree = TreeModel()
        for (i, c) in changes.enumerated() { tree.absorb(GraphEvent(sequence: UInt64(i + 1), time: 0, change: c)) }
        return tree
    }

    static func running(_ id: Int, _ kind: String, _ name: String, parent: Int?) -> [GraphChange] {
        [
            .added(id: NodeID(id), kind: kind, name: name, weight: 1, parent: parent.map { NodeID($0) }, index: nil),
            .stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil),
        ]
    }

    @Test func aSpanUnderAScopeNamesTheScope() {
        let tree = Self.tree(
            Self.running(0, "task", "server", parent: nil) + Self.running(1, "scope", "handler", parent: 0)
                + Self.running(2, "span", "GET /slow", parent: 1) + Self.running(3, "scope", "query", parent: 2))
        let d = DisplayTree(tree: tree, view: ViewState(), mask: nil)
        let p = CancelPreview(tree: tree, display: d, node: 2)
        #expect(p.prompt == "Cancel handler, which runs span GET /slow, and its 2 running subtasks? [y/N]")
        #expect(p.upwardNote == nil) // no upward rule for scopes
        #expect(p.cancellable)
    }

    @Test func aSpanNoTaskOwnsIsReadOnly() {
        let tree = Self.tree(Self.running(0, "span", "GET /", parent: nil))
        var model = DashboardModel(title: "t")
        model.tree = tree
        model.view.selection = 0
        _ = Reducer.reduce(&model, key: .char("x"), rows: 20)
        #expect(model.view.message == "read-only: no task of this program owns this span")
        #expect(model.view.mode == .normal)
    }
}

import Synchronization
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// `id` and `needs` in scenario files (docs/taskview.md "Dependencies: `id` and `needs`").
@Suite struct ScenarioNeedsTests {
    func session(_ text: String) throws -> ScenarioSession {
        let s = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        return try ScenarioSession(scenario: s, seed: 1)
    }

    /// The node of the row named `name` (the `after` node when it has needs).
    func node(_ s: ScenarioSession, _ name: String) -> GraphNode {
        let snap = s.graph.snapshot()
        let all = snap.nodes.values.filter { $0.name == name }
        return all.first { $0.kind == NodeKind.after } ?? all[0]
    }

    final class Events: @unchecked Sendable { // `snapshot`: set before the run, read after
        let list = Mutex<[GraphEvent]>([])
        var snapshot = GraphSnapshot.empty
    }

    /// When each leaf started and ended (virtual seconds), by name.
    func run(_ s: ScenarioSession, events: Events? = nil) -> [String: (Double, Double)] {
        let times = Mutex<[Int: (Double, Double)]>([:])
        let (snapshot, obs) = s.graph.snapshotAndObserve { e in
            events?.list.withLock { $0.append(e) }
            if case .stateChanged(let id, let state, _, _) = e.change {
                times.withLock { t in
                    var v = t[id.rawValue] ?? (.nan, .nan)
                    if state == .executing { v.0 = e.time } else if state.isSettled { v.1 = e.time }
                    t[id.rawValue] = v
                }
            }
        }
        events?.snapshot = snapshot
        s.runToEnd()
        obs.cancel()
        let snap = s.graph.snapshot()
        var out: [String: (Double, Double)] = [:]
        for (id, t) in times.withLock({ $0 }) where snap[NodeID(id)]?.kind == NodeKind.task {
            out[snap[NodeID(id)]!.name] = t
        }
        return out
    }

    @Test func needsOrderNodesAcrossTheTree() throws {
        let s = try session(
            """
            {"kind": "concurrent", "name": "ci", "children": [
              {"kind": "work", "name": "test", "duration": 1, "steps": 0, "needs": ["core", "docs"]},
              {"kind": "sequential", "name": "build", "children": [
                {"kind": "work", "name": "setup", "duration": 2, "steps": 0},
                {"kind": "work", "name": "core", "id": "core", "duration": 3, "steps": 0}
              ]},
              {"kind": "work", "name": "docs", "id": "docs", "duration": 4, "steps": 0}
            ]}
            """)
        let t = run(s)
        #expect(t["setup"]! == (0, 2))
        #expect(t["core"]! == (2, 5)) // not started out of its sequential's order
        #expect(t["docs"]! == (0, 4))
        #expect(t["test"]! == (5, 6)) // after both
        #expect(s.root.state == .completed)
        // The tree as written: test's row is under ci, core under build.
        let snap = s.graph.snapshot()
        #expect(snap[node(s, "test").id]?.parent == s.rootID)
        #expect(snap[node(s, "core").id]?.parent == node(s, "build").id)
        let test = node(s, "test").id.rawValue
        #expect(s.needs.needs[test] == [node(s, "core").id.rawValue, node(s, "docs").id.rawValue])
        #expect(s.needs.dependents(of: node(s, "core").id.rawValue) == [test])
        #expect(s.needs.ids[node(s, "docs").id.rawValue] == "docs")
    }

    @Test func aFailureSkipsItsDependentsTransitively() throws {
        let s = try session(
            """
            {"kind": "allSettled", "name": "ci", "children": [
              {"kind": "work", "name": "core", "id": "core", "duration": 1, "steps": 0, "fail": true},
              {"kind": "work", "name": "test", "id": "test", "duration": 1, "steps": 0, "needs": ["core"]},
              {"kind": "work", "name": "package", "duration": 1, "steps": 0, "needs": ["test"]},
              {"kind": "work", "name": "lint", "duration": 2, "steps": 0}
            ]}
            """)
        let events = Events()
        let t = run(s, events: events)
        #expect(t["test"] == nil)
        #expect(t["package"] == nil)
        #expect(t["lint"]! == (0, 2))
        #expect(node(s, "test").state == .cancelled)
        #expect(node(s, "test").progress.info == "needs core, which failed")
        #expect(node(s, "package").progress.info == "needs test, which was skipped")
        // The dashboard shows them skipped, with the reason.
        var tree = TreeModel(snapshot: events.snapshot)
        tree.absorb(events.list.withLock { $0 })
        let row = node(s, "test").id.rawValue
        #expect(tree[row].display == .skipped)
        #expect(tree[Int(tree[row].children[0])].display == .skipped)
        #expect(tree.counts[DisplayState.cancelled.rawValue] == 0)
        #expect(tree.counts[DisplayState.skipped.rawValue] == 2) // test and package; not their after nodes
    }

    @Test func rowsDetailPaneAndHeadlessLinesShowNeeds() throws {
        let s = try session(
            """
            {"kind": "allSettled", "name": "ci", "children": [
              {"kind": "work", "name": "core", "id": "core", "duration": 1, "steps": 0, "fail": true},
              {"kind": "work", "name": "docs", "id": "docs", "duration": 1, "steps": 0},
              {"kind": "work", "name": "test", "duration": 1, "steps": 0, "needs": ["core", "docs"]}
            ]}
            """)
        let events = Events()
        _ = run(s, events: events)
        var m = DashboardModel(title: "ci")
        m.tree = TreeModel(snapshot: events.snapshot)
        var printer = HeadlessPrinter(snapshot: events.snapshot)
        let lines = events.list.withLock { $0 }.compactMap { printer.absorb($0) }
        m.tree.absorb(events.list.withLock { $0 })
        m.tree.needsMap = s.needs
        m.root = s.rootID.rawValue
        m.view.selection = RowIndex(s.rootID.rawValue)
        #expect(lines.last { $0.contains("test") } == "[1.000] #3 test: skipped (needs core, which failed)")
        #expect(!lines.contains { $0.contains("#3 test: executing") })
        let grid = Renderer(ascii: true).render(m, width: 100, height: 8).grid.lines
        #expect(
            grid.contains { $0.hasPrefix("`- - test") && $0.trimmingSuffix().hasSuffix("needs core, which failed") })
        let d = DisplayTree(tree: m.tree, view: ViewState(), mask: nil)
        let test = node(s, "test").id.rawValue
        let detail = Renderer(ascii: true).detailLines(m.tree, d, row: RowIndex(test))
        #expect(detail.contains("Needs: core (failed), docs (succeeded)"))
        #expect(detail.contains("State: skipped"))
        let core = Renderer(ascii: true).detailLines(m.tree, d, row: RowIndex(node(s, "core").id.rawValue))
        #expect(core.contains("Needed by: test (skipped)"))
        #expect(
            HeadlessSummary(tree: m.tree).lines(root: s.rootID.rawValue).last
                == "`- #3 test: skipped (needs core, which failed)")
    }

    @Test func waitingNodesSayForWhat() throws {
        let s = try session(
            """
            {"kind": "concurrent", "name": "ci", "children": [
              {"kind": "work", "name": "core", "id": "core", "duration": 2, "steps": 0},
              {"kind": "work", "name": "docs", "id": "docs", "duration": 1, "steps": 0},
              {"kind": "work", "name": "test", "duration": 1, "steps": 0, "needs": ["core", "docs"]}
            ]}
            """)
        s.start()
        #expect(node(s, "test").progress.info == "waiting for core, docs")
        s.virtualClock!.advance(by: 1)
        #expect(node(s, "test").progress.info == "waiting for core")
        s.virtualClock!.advance(by: 1)
        #expect(node(s, "test").state == .executing)
        #expect(node(s, "test").progress.info == nil)
    }

    @Test func idsAndNeedsAreCheckedBeforeAnythingStarts() {
        func err(_ children: String) -> String? {
            decodeError(#"{"kind": "concurrent", "name": "ci", "children": ["# + children + "]}")
        }
        let a = #"{"kind": "work", "name": "a", "id": "a"}"#
        #expect(
            err(a + #", {"kind": "work", "name": "b", "id": "a"}"#)
                == #"s.json:1:129: $.children[1] (work "b"): duplicate id "a" (first at 1:87)"#)
        #expect(
            err(a + #", {"kind": "work", "name": "b", "needs": ["a", "zz"]}"#)
                == #"s.json:1:138: $.children[1] (work "b"): "needs" names unknown id "zz" (known ids: a)"#)
        #expect(
            err(#"{"kind": "work", "name": "a", "id": "a b"}"#)
                == #"s.json:1:87: $.children[0] (work "a"): "id" must be 1 to 128 letters, digits, '-', '_' or '.', not "a b""#
        )
        #expect(
            err(#"{"kind": "work", "name": "a", "needs": "b"}"#)
                == #"s.json:1:90: $.children[0] (work "a"): "needs" must be an array of ids, not a string"#)
        #expect(
            err(#"{"kind": "work", "name": "a", "id": "x", "repeat": 2}"#)?.hasSuffix(
                #"duplicate id "x" (first at 1:87); "repeat" copies its ids"#) == true)
    }

    @Test func cyclesAreNamedInOrder() {
        func err(_ children: String) -> String? {
            decodeError(#"{"kind": "concurrent", "name": "ci", "children": ["# + children + "]}")
        }
        let three =
            #"{"kind": "work", "name": "A", "id": "a", "needs": ["b"]}, "#
            + #"{"kind": "work", "name": "B", "id": "b", "needs": ["c"]}, "#
            + #"{"kind": "work", "name": "C", "id": "c", "needs": ["a"]}"#
        #expect(err(three)?.hasSuffix(#"$.children[0] (work "A"): "needs" makes a cycle: a -> b -> c -> a"#) == true)
        #expect(err(three)?.hasPrefix("s.json:1:102: ") == true) // a's "b" in needs
        #expect(
            err(#"{"kind": "work", "name": "A", "id": "a", "needs": ["a"]}"#)?.hasSuffix("cycle: a -> a") == true)
        // Needing a node that contains it: it could never start.
        let inside = decodeError(
            #"{"kind": "sequential", "name": "ci", "id": "ci", "children": [{"kind": "work", "name": "t", "id": "t", "needs": ["ci"]}]}"#
        )
        #expect(inside?.hasSuffix("cycle: ci -> t -> ci (one contains the other)") == true)
        // Needing a node that comes later in the same sequential.
        let order = decodeError(
            #"{"kind": "sequential", "name": "ci", "children": [{"kind": "work", "name": "t", "id": "t", "needs": ["u"]}, {"kind": "work", "name": "u", "id": "u"}]}"#
        )
        #expect(order?.hasSuffix("cycle: t -> u -> t") == true)
        // Ids anywhere, including a needed node in another branch's depth: fine.
        #expect(
            decodeError(
                #"{"kind": "concurrent", "name": "ci", "children": [{"kind": "sequential", "name": "s", "children": [{"kind": "work", "name": "deep", "id": "deep"}]}, {"kind": "work", "name": "t", "needs": ["deep"]}]}"#
            ) == nil)
    }

    @Test func aLongCycleNamesItsFirstTenNodesAndTheCount() {
        // A ring of n nodes, each needing the next.
        func ring(_ n: Int) -> String? {
            let kids = (0..<n).map { i in
                #"{"kind": "work", "name": "w", "id": "n\#(i)", "needs": ["n\#((i + 1) % n)"]}"#
            }
            return decodeError(
                #"{"kind": "concurrent", "name": "ci", "children": ["# + kids.joined(separator: ", ") + "]}")
        }
        let long = ring(10_000)
        #expect(
            long?.hasSuffix(
                #"$.children[0] (work "w"): "needs" makes a cycle: "#
                    + "n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> n8 -> n9 -> ... (10,000 nodes in the cycle)")
                == true)
        #expect((long?.utf8.count ?? 0) < 300) // one readable line, not 89 KB
        // Ten nodes are still named in full.
        #expect(ring(10)?.hasSuffix("cycle: n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> n8 -> n9 -> n0") == true)
    }

    @Test func needsIntoARetryAreRefused() {
        let e = decodeError(
            #"{"kind": "concurrent", "name": "ci", "children": [{"kind": "retry", "name": "r", "children": [{"kind": "work", "name": "w", "id": "w"}]}, {"kind": "work", "name": "t", "needs": ["w"]}]}"#
        )
        #expect(e?.contains(#""needs" names "w", which is inside a retry"#) == true)
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

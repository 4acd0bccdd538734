import Testing

@testable import TaskGraph
@testable import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// One node as every fold of `GraphChange` keeps it (`GraphFold`): what the folds must agree
/// on. Ids are the graph's own (an attach session's local ids are mapped back).
struct FoldNode: Equatable, CustomStringConvertible {
    var kind: String
    var name: String
    var parent: Int
    var children: [Int]
    var state: TaskState
    var failed: Bool
    var fraction: Double
    var message: String?
    var refOf: Int
    var attemptOf: Int

    init(_ n: LogModel.Node) {
        kind = n.kind
        name = n.name
        parent = Int(n.parent)
        children = n.children.map { Int($0) }
        state = n.state
        failed = n.failed
        fraction = n.fraction
        message = n.message
        refOf = Int(n.refOf)
        attemptOf = Int(n.attemptOf)
    }

    var description: String {
        "\(kind) \"\(name)\" parent \(parent) children \(children) \(state)\(failed ? " failed" : "")"
            + " \(fraction) \(message ?? "-") ref \(refOf) attempt \(attemptOf)"
    }
}

/// The state of every fold after the same changes, node by node.
struct FoldStates {
    var log = LogModel()
    var replica = GraphReplica()
    var recorder = RecorderModel()
    var tree = TreeModel()
    var attach = AttachTree()
    var attached = TreeModel()
    var program = 0
    var sequence: UInt64 = 0

    init() throws {
        program = attach.addProgram(name: "p", pid: 1)
        try attach.apply(AttachLines.header(), program: program, tree: &attached)
    }

    mutating func apply(_ e: GraphEvent) {
        sequence = e.sequence
        log.apply(e.change, time: e.time)
        replica.apply(e)
        recorder.apply(e.change, time: e.time)
        tree.absorb(e)
        attach.apply(.events([e]), program: program, tree: &attached, now: 0)
    }

    /// LogModel's nodes by id.
    var logNodes: [Int: FoldNode] { Self.byID(log.liveNodesByID()) }
    var recorderNodes: [Int: FoldNode] { Self.byID(recorder.liveNodesByID()) }

    /// The replica's snapshot as nodes (it keeps no attempts: taken from `log`).
    var replicaNodes: [Int: FoldNode] {
        var out: [Int: FoldNode] = [:]
        for (id, n) in replica.snapshot.nodes {
            var node = LogModel.Node(id: Int32(id.rawValue), kind: n.kind, name: n.name, weight: n.weight)
            node.parent = Int32(n.parent?.rawValue ?? -1)
            node.children = n.children.map { Int32($0.rawValue) }
            node.state = n.state
            node.failed = n.failed
            node.fraction = n.progress.fraction
            node.message = n.message
            node.refOf = Int32(n.refOf?.rawValue ?? -1)
            node.attemptOf = log[id.rawValue]?.attemptOf ?? -1
            out[id.rawValue] = FoldNode(node)
        }
        return out
    }

    var treeNodes: [Int: FoldNode] { Self.nodes(of: tree) { $0 } }

    /// The attach session's tree, local ids mapped back to the program's (its row is the
    /// roots' parent, -1 here).
    var attachedNodes: [Int: FoldNode] {
        let attach = attach
        let row = attach.programs[program].row
        return Self.nodes(of: attached) { local in
            if local == row { return -1 }
            return attach.target(of: local)?.remote ?? -1_000_000 - local
        }
        .filter { $0.key != -1 }
    }

    static func byID(_ nodes: [LogModel.Node]) -> [Int: FoldNode] {
        Dictionary(uniqueKeysWithValues: nodes.map { (Int($0.id), FoldNode($0)) })
    }

    /// A tree's live nodes, ids through `id` (-1 stays -1).
    static func nodes(of tree: TreeModel, id: (Int) -> Int) -> [Int: FoldNode] {
        var attemptOf: [Int: Int] = [:]
        for (row, list) in tree.attempts { for n in list { attemptOf[n] = row } }
        var out: [Int: FoldNode] = [:]
        for i in 0..<tree.nodes.count where tree.contains(i) {
            let n = tree[i]
            var node = LogModel.Node(id: 0, kind: n.kind, name: n.name, weight: n.weight)
            node.parent = n.parent < 0 ? -1 : Int32(id(Int(n.parent)))
            node.children = n.children.map { Int32(id(Int($0))) }
            node.state = n.state
            node.failed = n.failed
            node.fraction = n.fraction
            node.message = n.message
            node.refOf = n.refOf < 0 ? -1 : Int32(id(Int(n.refOf)))
            node.attemptOf = attemptOf[i].map { Int32(id($0)) } ?? -1
            out[id(i)] = FoldNode(node)
        }
        return out
    }

    /// Differences from LogModel's state, one line each (empty: every fold agrees).
    func differences() -> [String] {
        let reference = logNodes
        var out: [String] = []
        let folds: [(String, [Int: FoldNode])] = [
            ("GraphReplica", replicaNodes), ("RecorderModel", recorderNodes), ("TreeModel", treeNodes),
            ("AttachTree", attachedNodes),
        ]
        for (name, folded) in folds {
            var nodes = folded
            if name == "TreeModel" || name == "AttachTree" {
                // A view also draws an attempt's descendants in the rows of the nodes at the
                // same places: links only the log's `attempt` events name are compared.
                for (id, n) in nodes where n.attemptOf >= 0 && (reference[id]?.attemptOf ?? -1) < 0 {
                    nodes[id]?.attemptOf = -1
                }
            }
            for id in Set(reference.keys).union(nodes.keys).sorted() where reference[id] != nodes[id] {
                out.append(
                    "after \(sequence): \(name) node \(id): \(nodes[id].map(\.description) ?? "missing"), "
                        + "LogModel: \(reference[id].map(\.description) ?? "missing")")
            }
        }
        if replica.snapshot != log.snapshot(sequence: sequence) {
            out.append("after \(sequence): GraphReplica snapshot")
        }
        return out
    }
}

/// Every fold of `GraphChange` (LogModel and the GraphReplica over it, RecorderModel,
/// TreeModel, an attach session's translation) agrees node by node on the same changes:
/// hand-written scripts, the shipped demos' recorded logs, a restart's log, a pipeline with
/// needs, and an attach session that starts from a snapshot.
@Suite struct FoldConformanceTests {
    /// Feeds `events` to every fold; compares them after every `every`-th event and at the end.
    func differences(_ events: some Collection<GraphEvent>, every: Int = 1) throws -> [String] {
        var folds = try FoldStates()
        var out: [String] = []
        for (k, e) in events.enumerated() {
            folds.apply(e)
            if (k + 1) % every == 0 || k + 1 == events.count { out += folds.differences() }
            if out.count > 20 { break }
        }
        return out
    }

    /// Expects no difference, listing them when there are.
    func expectAgreement(
        _ events: some Collection<GraphEvent>, every: Int = 1, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let found = try differences(events, every: every)
        #expect(found == [], "\(found.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    static func events(_ changes: [GraphChange]) -> [GraphEvent] {
        changes.enumerated().map {
            GraphEvent(sequence: UInt64($0.offset + 1), time: Double($0.offset), change: $0.element)
        }
    }

    /// Every kind of change, on a small tree: adoption at an index, weights, progress,
    /// failures, cancels, refs, attempts, renames, output, warnings, attributes, usage and a drop.
    static let script: [GraphChange] = [
        .added(id: NodeID(0), kind: "sequential", name: "root", weight: 1, parent: nil, index: nil),
        .added(id: NodeID(1), kind: "task", name: "a", weight: 2, parent: NodeID(0), index: 0),
        .added(id: NodeID(2), kind: "task", name: "b", weight: 1, parent: nil, index: nil),
        .parentSet(id: NodeID(2), parent: NodeID(0), index: 0),
        .added(id: NodeID(3), kind: "concurrent", name: "c", weight: 1, parent: NodeID(0), index: 5),
        .added(id: NodeID(4), kind: "task", name: "d", weight: 1, parent: NodeID(3), index: nil),
        .added(id: NodeID(5), kind: NodeKind.ref, name: "d again", weight: 1, parent: NodeID(3), index: 1),
        .ref(id: NodeID(5), of: NodeID(4)),
        .weightChanged(id: NodeID(4), weight: 3),
        .stateChanged(id: NodeID(0), state: .executing, failed: false, message: nil),
        .stateChanged(id: NodeID(2), state: .executing, failed: false, message: nil),
        .progress(id: NodeID(2), progress: TaskProgress(0.25, info: "1/4")),
        .progress(id: NodeID(1), progress: TaskProgress(0.5, info: nil)),
        .progress(id: NodeID(2), progress: TaskProgress(0.5, info: "2/4")),
        .renamed(id: NodeID(2), name: "b renamed"),
        .output(id: NodeID(2), stream: .stdout, text: "hello"),
        .warn(id: NodeID(2), rule: WarningRule.silent, text: "no output for 2m"),
        .warn(id: NodeID(2), rule: WarningRule.silent, text: nil),
        .log(id: NodeID(2), record: NodeLogRecord(level: "warning", message: "disk", metadata: ["disk": "sda"])),
        .attributes(id: NodeID(2), attributes: [NodeAttribute("k", "v")]),
        .usage(id: NodeID(2), usage: NodeUsage(cpu: 0.25, rss: 4096)),
        .stateChanged(id: NodeID(2), state: .completed, failed: true, message: "boom"),
        .cancelRequested(id: NodeID(1), source: CancelSource.parent),
        .stateChanged(id: NodeID(1), state: .cancelled, failed: false, message: nil),
        .stateChanged(id: NodeID(0), state: .completed, failed: true, message: "b failed"),
        .added(id: NodeID(6), kind: "allSettled", name: "restart of b", weight: 1, parent: nil, index: nil),
        .added(id: NodeID(7), kind: "task", name: "b", weight: 1, parent: NodeID(6), index: 0),
        .attempt(id: NodeID(7), of: NodeID(2)),
        .stateChanged(id: NodeID(6), state: .executing, failed: false, message: nil),
        .stateChanged(id: NodeID(7), state: .executing, failed: false, message: nil),
        .renamed(id: NodeID(7), name: "b, attempt 2"),
        .stateChanged(id: NodeID(7), state: .completed, failed: false, message: nil),
        .stateChanged(id: NodeID(6), state: .completed, failed: false, message: nil),
        .added(id: NodeID(8), kind: "task", name: "other", weight: 1, parent: nil, index: nil),
        .stateChanged(id: NodeID(8), state: .completed, failed: false, message: nil),
        .renamed(id: NodeID(9), name: "unknown"), // about no node: ignored
        .dropped(ids: [NodeID(8)]),
    ]

    @Test func everyKindOfChangeLeavesTheSameNodesInEveryFold() throws {
        try expectAgreement(Self.events(Self.script))
    }

    @Test func theComparisonFailsWhenOneFoldDiffers() throws {
        var folds = try FoldStates()
        for e in Self.events(Self.script) { folds.apply(e) }
        folds.tree.renamed(id: NodeID(2), name: "b", time: 37) // as a fold that ignored `renamed` would have it
        #expect(
            folds.differences() == [
                "after 37: TreeModel node 2: task \"b\" parent 0 children [] completed failed 0.5 boom ref -1 "
                    + "attempt -1, LogModel: task \"b renamed\" parent 0 children [] completed failed 0.5 boom "
                    + "ref -1 attempt -1"
            ])
    }

    @Test(arguments: ["build", "pipeline", "flaky", "stress", "ci"])
    func aShippedDemosLogLeavesTheSameNodesInEveryFold(demo: String) throws {
        let log = try demoLog(demo, seed: 7).log
        #expect(log.initialNodes == nil || log.initialNodes?.isEmpty == true)
        #expect(log.eventCount > 10)
        try expectAgreement(log.events, every: max(1, log.eventCount / 40))
    }

    @Test func aDemoCancelledMidRunLeavesTheSameNodesInEveryFold() throws {
        let log = try demoLog("build", seed: 3, cancel: ("compile Renderer.swift", 13)).log
        try expectAgreement(log.events, every: 5)
    }

    @Test func aRestartsLogLeavesTheSameNodesInEveryFold() throws {
        let path = temporaryLogPath("fold-restart")
        defer { unlink(path) }
        var run = try RestartTests.Run(RestartTests.sequence, seed: RestartTests.seed(path: "0.1"), recordTo: path)
        run.toEnd()
        run.model.view.selection = run.row("flaky")
        run.key("R")
        run.toEnd()
        run.session.finishRecording()
        let log = try LogReader.load(path: path)
        #expect(log.events.contains { if case .attempt = $0.change { true } else { false } })
        try expectAgreement(log.events)
    }

    /// A viewer attaching midway gets a snapshot, then the events after it.
    @Test func anAttachSessionFromASnapshotLeavesTheSameNodesAsTheFolds() throws {
        let log = try demoLog("ci", seed: 7).log
        let events = Array(log.events)
        let half = events.count / 2
        var model = LogModel()
        for e in events[..<half] { model.apply(e.change, time: e.time) }
        var folds = try FoldStates()
        folds.attach.apply(
            .snapshot(nodes: model.liveNodesByID(), roots: model.rootIDs, time: events[half - 1].time),
            program: folds.program, tree: &folds.attached, now: 0)
        folds.log = model
        #expect(folds.attachedNodes == folds.logNodes)
        for e in events[half...] {
            folds.log.apply(e.change, time: e.time)
            folds.attach.apply(.events([e]), program: folds.program, tree: &folds.attached, now: 0)
        }
        #expect(folds.attachedNodes.count > 10)
        #expect(folds.attachedNodes == folds.logNodes)
    }
}

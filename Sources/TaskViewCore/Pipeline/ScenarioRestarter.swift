import TaskGraph
import TaskGraphProcess

/// Restart for scenario runs: a settled node's subtree is built again
/// from its `ScenarioNode` (its remake) and run as a new attempt, together with every node
/// skipped because of it (`needs`, transitively), each rebuilt with `after` on the newest
/// attempts of what it needs. States only move forward in a graph, so the new attempts are
/// new nodes: one `allSettled` root per restart holds them (the dashboard hides it and draws
/// each new node in the row of the node it replaces).
public final class ScenarioRestarter: @unchecked Sendable { // used from the dashboard's thread
    let scenario: Scenario
    let graph: Graph
    let seed: UInt64
    let slots: CommandSlots?
    /// The scenario root's node.
    let rootRow: Int
    /// Newest task of each node with an `id` or `needs`, by path.
    private var newest: [String: ScenarioTask]
    /// The path of each id.
    private let idPaths: [String: String]
    /// The original node (row) of each of those paths.
    private let rows: [String: Int]
    /// The restart groups made so far.
    private var groups: [ScenarioTask] = []
    /// Original row of each attempt's top node (so a row inside an attempt finds its path).
    private var attemptOf: [Int: Int] = [:]

    /// One restart carried out.
    public struct Restart: Sendable, Equatable {
        /// The hidden root holding the new attempts.
        public let group: Int
        /// (original row, the new node drawn in it): the restarted node first, then the
        /// dependents.
        public let tops: [Restarted]
    }

    /// A row and its new attempt's node.
    public struct Restarted: Sendable, Equatable {
        public let row: Int
        public let node: Int
    }

    public init(session: ScenarioSession) {
        scenario = session.scenario
        graph = session.graph
        seed = session.seed
        slots = session.slots
        rootRow = session.rootID.rawValue
        newest = session.tracked
        var rows: [String: Int] = [:]
        for (p, t) in session.tracked { rows[p] = t.id.rawValue }
        self.rows = rows
        idPaths = ScenarioNeeds.paths(session.scenario)
    }

    /// Whether a restart's attempts still run.
    public var running: Bool { groups.contains { !$0.state.isSettled } }

    /// Cancels the attempts still running (quitting).
    public func cancelAll(source: String) {
        for g in groups where !g.state.isSettled { graph.cancel(g.id, source: source) }
    }

    /// The scenario node drawn in `row`, and its path (`0.2.1`); nil for rows that are no
    /// scenario node.
    public func locate(_ row: Int, in tree: TreeModel) -> (node: ScenarioNode, path: String)? {
        var steps: [(kind: String, index: Int)] = []
        var n = row
        var guardSteps = 0
        while n != rootRow, guardSteps < 100_000 {
            guardSteps += 1
            if let r = attemptOf[n] {
                n = r
                continue
            }
            guard tree.contains(n) else { return nil }
            let p = Int(tree[n].parent)
            guard p >= 0, tree.contains(p) else { return nil }
            steps.append((tree[p].kind, Int(tree[n].index)))
            n = p
        }
        var node = scenario.root
        var path = "0"
        for (kind, i) in steps.reversed() {
            if kind == NodeKind.after { continue } // the task it guards: the same scenario node
            let k = kind == NodeKind.retry ? 0 : i // later attempts are copies of the first
            guard k < node.children.count else { return nil }
            node = node.children[k]
            path += ".\(k)"
        }
        return (node, path)
    }

    /// The paths of the nodes skipped because of the node at `path`: they were skipped by
    /// their needs, and each of their needs is it (or a node inside it), such a node, or a
    /// node that succeeded: once those run again they can run.
    public func dependents(of node: ScenarioNode, at path: String) -> [String] {
        var reached = Set<String>()
        for f in ScenarioNeeds.flatten(node) { if let id = f.node.id { reached.insert(id) } }
        var out: [String] = []
        var changed = true
        let candidates = newest.keys.sorted().filter { $0 != path && !$0.hasPrefix(path + ".") }
        while changed {
            changed = false
            for p in candidates where !out.contains(p) {
                guard let n = nodeAt(p), n.needs.contains(where: reached.contains), let t = newest[p],
                    t.kind == NodeKind.after, t.cancelSource == CancelSource.needs,
                    n.needs.allSatisfy({ reached.contains($0) || succeeded($0) })
                else { continue }
                out.append(p)
                if let id = n.id { reached.insert(id) }
                changed = true
            }
        }
        return out
    }

    /// Whether the newest attempt of the node with id `id` succeeded.
    func succeeded(_ id: String) -> Bool {
        guard let p = idPaths[id], let t = newest[p], case .success? = t.outcome else { return false }
        return true
    }

    func nodeAt(_ path: String) -> ScenarioNode? {
        var node = scenario.root
        for part in path.split(separator: ".").dropFirst() {
            guard let i = Int(part), i < node.children.count else { return nil }
            node = node.children[i]
        }
        return node
    }

    /// Restarts the node drawn in `row` (settled; the caller checked) and its skipped
    /// dependents. Nil when the row is no scenario node.
    public func restart(_ row: Int, in tree: TreeModel) -> Restart? {
        guard let (node, path) = locate(row, in: tree) else { return nil }
        let deps = dependents(of: node, at: path)
        let builder = ScenarioBuilder(graph: graph, seed: seed, slots: slots)
        builder.made.start(scenario)
        builder.made.attemptBase = 1000 * (groups.count + 1)
        // Nodes not rebuilt are waited for as they are (their newest attempt).
        builder.made.prefill(newest.filter { p, _ in p != path && !p.hasPrefix(path + ".") && !deps.contains(p) })
        var tops: [(row: Int, task: ScenarioTask)] = [(row, builder.build(node, path: path))]
        for p in deps {
            guard let n = nodeAt(p), let r = rows[p] else { continue }
            let t = builder.build(n, path: p)
            if !tops.contains(where: { $0.task === t }) { tops.append((r, t)) }
        }
        let group = ScenarioTask.allSettled(tops.map(\.task), name: "restart of \(node.name)", graph: graph) { _ in }
        for (p, t) in builder.made.tracked { newest[p] = t }
        for (r, t) in tops { attemptOf[t.id.rawValue] = r }
        groups.append(group)
        group.execute()
        return Restart(group: group.id.rawValue, tops: tops.map { Restarted(row: $0.row, node: $0.task.id.rawValue) })
    }
}

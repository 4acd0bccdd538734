import TaskGraph
import TaskGraphProcess

/// Restart for scenario runs: a settled node's subtree is built again
/// from its `ScenarioNode` (its remake) and run as a new attempt, then the later steps of
/// its `sequential`s that never ran because of it, and every node skipped because of it
/// (`needs`, transitively), each rebuilt with `after` on the newest attempts of what it
/// needs. States only move forward in a graph, so the new attempts are new nodes: one
/// `allSettled` root per restart holds them, and an `attempt` event per new top node says
/// which row it takes (the dashboard, replay and attach hide the root and draw each new node
/// in the row of the node it replaces).
package final class ScenarioRestarter: @unchecked Sendable { // used from the dashboard's thread
    let scenario: Scenario
    let graph: Graph
    let seed: UInt64
    let slots: CommandSlots?
    let keepGoing: Bool
    /// The scenario root's node.
    let rootRow: Int
    /// Newest task of each node with an `id` or `needs`, by path.
    private var newest: [String: ScenarioTask]
    /// The restart groups made so far.
    private var groups: [ScenarioTask] = []
    /// Original row of each attempt's top node (so a row inside an attempt finds its path).
    private var attemptOf: [Int: Int] = [:]

    /// One restart carried out.
    package struct Restart: Sendable, Equatable {
        /// The hidden root holding the new attempts.
        package let group: Int
        /// (original row, the new node drawn in it): the rows it needs first (`withNeeds`),
        /// then the restarted node, then the dependents.
        package let tops: [Restarted]
        /// How many of `tops` are rows the restarted node needs.
        package var needs = 0
    }

    /// A row and its new attempt's node.
    package struct Restarted: Sendable, Equatable {
        package let row: Int
        package let node: Int
    }

    package init(session: ScenarioSession) {
        scenario = session.scenario
        graph = session.graph
        seed = session.seed
        slots = session.slots
        keepGoing = session.keepGoing
        rootRow = session.rootID.rawValue
        newest = session.tracked
    }

    /// Whether a restart's attempts still run.
    package var running: Bool { groups.contains { !$0.state.isSettled } }

    /// Cancels the attempts still running (quitting).
    package func cancelAll(source: String) {
        for g in groups where !g.state.isSettled { graph.cancel(g.id, source: source) }
    }

    /// The scenario node drawn in `row`, and its path (`0.2.1`); nil for rows that are no
    /// scenario node.
    package func locate(_ row: Int, in tree: TreeModel) -> (node: ScenarioNode, path: String)? {
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

    /// Restarts the node drawn in `row` (settled; the caller checked) and what was skipped
    /// because of it (`TreeModel.restartPlan`): each chain of rows is built again (a chain of
    /// more than one as a `sequential`, so the later steps run after the new attempt
    /// succeeded), all of them under one hidden `allSettled` group, and each new top node is
    /// recorded as an attempt of its row (`Graph.recordAttempt`), which places it in the
    /// dashboard, the log and attached viewers alike. Nil when the row is no scenario node.
    ///
    /// `withNeeds` (`a`): the rows it needs, transitively (`TreeModel.restartNeeds`), run again
    /// first, each as its own top, built before it so that its `after` waits for them.
    package func restart(_ row: Int, in tree: TreeModel, withNeeds: Bool = false) -> Restart? {
        guard let (node, _) = locate(row, in: tree) else { return nil }
        var chains: [[(row: Int, node: ScenarioNode, path: String)]] = []
        let needRows = withNeeds ? tree.restartNeeds(row) : []
        for r in needRows {
            if let (n, p) = locate(r, in: tree) { chains.append([(r, n, p)]) }
        }
        let needChains = chains.count
        for rows in tree.restartPlan(row).chains {
            let chain = rows.compactMap { r in locate(r, in: tree).map { (r, $0.node, $0.path) } }
            if !chain.isEmpty { chains.append(chain) }
        }
        let paths = chains.joined().map(\.path)
        func rebuilt(_ p: String) -> Bool { paths.contains { p == $0 || p.hasPrefix($0 + ".") } }
        let builder = ScenarioBuilder(graph: graph, seed: seed, slots: slots, keepGoing: keepGoing)
        builder.needsResolver.start(scenario)
        builder.needsResolver.attemptBase = 1000 * (groups.count + 1)
        // Nodes not rebuilt are waited for as they are (their newest attempt).
        builder.needsResolver.prefill(newest.filter { p, _ in !rebuilt(p) })
        var tops: [(row: Int, task: ScenarioTask)] = []
        var groupTasks: [ScenarioTask] = []
        for chain in chains {
            var tasks: [ScenarioTask] = []
            for step in chain {
                let t = builder.build(step.node, path: step.path)
                guard !tops.contains(where: { $0.task === t }) else { continue }
                tops.append((step.row, t))
                tasks.append(t)
            }
            guard let first = tasks.first else { continue }
            groupTasks.append(
                tasks.count == 1
                    ? first
                    : ScenarioTask.sequential(tasks, name: "\(chain[0].node.name) and the steps after it", graph: graph)
                    {
                        _ in ()
                    })
        }
        let group = ScenarioTask.allSettled(groupTasks, name: "restart of \(node.name)", graph: graph) { _ in }
        for (p, t) in builder.needsResolver.tracked { newest[p] = t }
        for (r, t) in tops {
            attemptOf[t.id.rawValue] = r
            graph.recordAttempt(t.id, of: NodeID(r))
        }
        groups.append(group)
        builder.needsResolver.markAllowed(in: graph)
        group.execute()
        var done = Restart(
            group: group.id.rawValue, tops: tops.map { Restarted(row: $0.row, node: $0.task.id.rawValue) })
        done.needs = needChains
        return done
    }
}

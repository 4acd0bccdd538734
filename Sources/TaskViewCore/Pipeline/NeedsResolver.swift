import TaskGraph

/// Which graph nodes a scenario's `id`s and `needs` became, for the dashboard's detail
/// pane (`Needs:`, `Needed by:`): by raw node id, the node a row shows (the `after` node of a
/// node with needs, else the node's own task).
package struct ScenarioNeedsMap: Sendable, Equatable {
    /// Node -> the nodes it needs, in the file's order.
    package var needs: [Int: [Int]] = [:]
    /// Node -> its `id`.
    package var ids: [Int: String] = [:]

    package init() {}

    /// The nodes that need `node`, in node order.
    package func dependents(of node: Int) -> [Int] {
        needs.compactMap { $0.value.contains(node) ? $0.key : nil }.sorted()
    }
}

/// The state of one `ScenarioBuilder.build` with needs: a node that another needs is built
/// when first needed (before its place in the tree comes up) and found again there, so each
/// scenario node is one task; a node with needs is wrapped in `after(_:)` (named by ids).
/// The decoder has refused cycles, so needing a node never comes back to itself.
final class NeedsResolver: @unchecked Sendable { // used by one build on one thread
    private var byID: [String: (node: ScenarioNode, path: String)] = [:]
    private var built: [String: ScenarioTask] = [:]
    private(set) var map = ScenarioNeedsMap()
    /// The task made for each node with an `id` or `needs`, by path (what a restart starts from).
    private(set) var tracked: [String: ScenarioTask] = [:]
    /// Added to the attempt number of `work` leaves (a restart's leaves draw new numbers).
    var attemptBase = 0
    /// The nodes made for `allowFailure` nodes (their rows), to mark once observed (`markAllowed`).
    private(set) var allowed: [NodeID] = []

    /// Gives the `allowFailure` nodes built their attribute: after observing began, since
    /// snapshots carry no attributes (views learn it from the event).
    func markAllowed(in graph: Graph) {
        for id in allowed { graph.setAttributes(id, [RunVerdict.allowFailureAttribute]) }
    }

    /// Before a restart's build: nodes not rebuilt are found as they are (`built`).
    func prefill(_ tasks: [String: ScenarioTask]) {
        for (p, t) in tasks { built[p] = t }
    }

    func start(_ scenario: Scenario) {
        byID = [:]
        built = [:]
        map = ScenarioNeedsMap()
        // One walk of the tree for both passes (as `ScenarioNeeds.paths`: the last node with an id wins).
        let flat = ScenarioNeeds.flatten(scenario.root)
        var paths: [String: String] = [:]
        for f in flat { if let id = f.node.id { paths[id] = f.key } }
        guard !paths.isEmpty else { return }
        for f in flat {
            if let id = f.node.id, paths[id] == f.key { byID[id] = (f.node, f.key) }
        }
    }

    /// The task already made for the node at `path` (one that another node needed).
    func task(at path: String) -> ScenarioTask? {
        built.isEmpty ? nil : built[path]
    }

    /// Builds the nodes `ids` name that are not built yet, each after what it (or a node
    /// inside it) needs, with a stack instead of recursion: a chain of 20,000 nodes each
    /// needing the next one down the file was 20,000 nested builds, a stack overflow. The
    /// decoder refused cycles, so a node on the stack never comes back.
    private func buildNeeded(_ ids: [String], builder: ScenarioBuilder) {
        func unbuilt(_ id: String) -> Bool { byID[id].map { built[$0.path] == nil } ?? false }
        var stack: [(id: String, expanded: Bool)] = ids.reversed().filter(unbuilt).map { ($0, false) }
        while let (id, expanded) = stack.popLast() {
            guard let (n, p) = byID[id], built[p] == nil else { continue }
            if expanded {
                _ = builder.build(n, path: p) // what it needs is built: no nesting
                continue
            }
            stack.append((id, true))
            for need in Self.needsWithin(n).reversed() where unbuilt(need) { stack.append((need, false)) }
        }
    }

    /// The ids `node` and the nodes inside it need (building it builds them).
    private static func needsWithin(_ node: ScenarioNode) -> [String] {
        var out: [String] = []
        var stack = [node]
        while let n = stack.popLast() {
            out += n.needs
            stack += n.children
        }
        return out
    }

    /// Weight, then `after` for needs; remembered when the node has an id.
    func finish(_ node: ScenarioNode, path: String, task inner: ScenarioTask, builder: ScenarioBuilder) -> ScenarioTask
    {
        var task = inner
        if !node.needs.isEmpty {
            buildNeeded(node.needs, builder: builder)
            // Needs on an `allowFailure` node wait for it to end, however it ends.
            var tolerated = Set<Int>()
            var prerequisites: [AnyGraphTask] = []
            for id in node.needs {
                guard let (n, p) = byID[id] else { continue }
                if n.allowFailure { tolerated.insert(prerequisites.count) }
                prerequisites.append(built[p] ?? builder.build(n, path: p))
            }
            task = inner.after(prerequisites, labels: node.needs, tolerated: tolerated, name: nil)
            map.needs[task.id.rawValue] = prerequisites.map(\.id.rawValue)
        }
        if let w = node.weight { task.weight = w }
        if node.allowFailure { allowed.append(task.id) }
        if let id = node.id {
            built[path] = task
            map.ids[task.id.rawValue] = id
        }
        if node.id != nil || !node.needs.isEmpty { tracked[path] = task }
        return task
    }
}

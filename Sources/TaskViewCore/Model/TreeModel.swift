import TaskGraph
import TaskGraphProcess

/// The graph as the dashboard knows it, built from `GraphEvent`s alone (so a live run and a
/// replay of its log look the same). Nodes are found by `NodeID.rawValue` in a
/// `TreeNodeStore` (an array while ids are dense, memory following the nodes present); counts per display state are kept up to date per event, so nothing
/// needs a pass over the whole tree per frame.
public struct TreeModel: Sendable {
    /// One node's facts. `parent`/`children` use raw ids (-1: none).
    package struct Node: Sendable {
        package var exists = false
        package var kind: String = NodeKind.task
        /// The name, sanitized once on arrival.
        package var name: String = ""
        package var parent: Int32 = -1
        package var children: [Int32] = []
        /// Position in the parent's `children` (or in `roots`).
        package var index: Int32 = 0
        package var weight: Double = 1
        package var state: TaskState = .notExecuted
        package var failed = false
        package var skipped = false
        /// Whether the counts count the node (`TreeModel.isCounted(kind:)`, set when it is added).
        package var counted = true
        package var fraction: Double = 0
        /// Raw (unsanitized) info and error texts; sanitized when drawn.
        package var info: String?
        package var message: String?
        package var addedAt: Double = 0
        package var startedAt: Double = .nan
        package var endedAt: Double = .nan
        /// Source of the last cancel request seen for the node.
        package var cancelSource: String?
        /// For a `ref` node: the raw id of the shared node it stands for (-1: none).
        package var refOf: Int32 = -1
        /// Counts per display state of the node's subtree, itself included (kept per event).
        package internal(set) var subtree = SubtreeCounts()

        /// The state a row shows.
        package var display: DisplayState {
            switch state {
            case .notExecuted: skipped ? .skipped : .notExecuted
            case .executing: .executing
            case .completed: failed ? .failed : .succeeded
            case .cancelled: skippedByNeeds ? .skipped : .cancelled
            }
        }

        /// An `after` node cancelled because a node it needs failed, was cancelled or
        /// skipped: its task never ran, so the row shows it skipped (with the reason as info).
        package var skippedByNeeds: Bool { cancelSource == CancelSource.needs && kind == NodeKind.after }

        /// An adapter drawn in its only child's row (`map`, and `after`, whose row is the task
        /// it guards), so the tree shows the nodes as written.
        package var foldsIntoChild: Bool {
            children.count == 1 && (kind == NodeKind.map || kind == NodeKind.after)
        }
    }

    package internal(set) var nodes = TreeNodeStore()
    /// Root ids in creation order; entries whose node is no longer a root are tombstones
    /// (skipped when walking), so adopting a root costs O(1).
    var rootSlots: [Int32] = []
    var rootTombstones = 0
    /// Number of live counted nodes (`isCounted(kind:)`) per `DisplayState.rawValue`, kept
    /// per event; `counts` is what views show.
    var nodeCounts = [Int](repeating: 0, count: DisplayState.allCases.count)
    /// Number of live nodes the counts leave out.
    var uncountedLive = 0
    /// Time of the last event absorbed (graph clock).
    package internal(set) var time: Double = 0
    /// Sequence number of the last event absorbed.
    package internal(set) var sequence: UInt64 = 0
    /// Bumped when nodes appear, move, vanish or are renamed (not on state or progress): lets derived
    /// data such as a filter know when to recompute.
    package var structureVersion: UInt64 = 0
    /// The last output lines of nodes that printed any (commands), by raw id.
    package internal(set) var outputs: [Int: OutputRing] = [:]
    /// The last log records of nodes that logged any, by raw id (`NodeLogs.swift`).
    package internal(set) var logs: [Int: NodeLogs] = [:]
    /// Warning and error records in each subtree that has any, by raw id.
    package internal(set) var logCounts: [Int: LogCounts] = [:]
    /// Log records the program dropped (its budget ran out), as the records after them said.
    package internal(set) var droppedLogRecords = 0
    /// Output lines and log records absorbed so far: each one's place in a node's stream.
    var streamOrder = 0
    /// What is known about nodes that run commands (command line, directory, pid, exit), by
    /// raw id. Filled by the live source from `CommandRegistry`; a replay has none.
    package internal(set) var commands: [Int: CommandInfo] = [:]
    /// When commands that waited for a slot (info `queued`) started, by raw id.
    package internal(set) var runningSince: [Int: Double] = [:]
    /// Spans' attributes (the last `attributes` event of each), by raw id.
    package internal(set) var attributes: [Int: [NodeAttribute]] = [:]
    /// What nodes cost (their last `usage` events), by raw id.
    package internal(set) var usages: [Int: UsageSample] = [:]
    /// Current warnings (`warn` events): by raw id, then rule (`WarningRule`), their texts
    /// (raw; sanitized when drawn). See `TreeModel+Warnings.swift`.
    package internal(set) var warnings: [Int: [String: String]] = [:]
    /// How many warnings `warnings` holds (the header's `⚠ N`).
    package internal(set) var warningCount = 0
    /// Every warning that began, in order (at most `TreeModel.maxWarningsSeen`): the report's
    /// "Warnings" block.
    package internal(set) var warningsSeen: [SeenWarning] = []
    /// What a scenario's `id`s and `needs` became (live runs of scenarios; empty otherwise).
    package var needsMap = ScenarioNeedsMap()
    /// Restarts: each row's later attempts (nodes drawn in its place, newest last).
    package internal(set) var attempts: [Int: [Int]] = [:]
    /// The nodes that hold restarts' attempts (a root; under an attach program's row, a child
    /// of it): not drawn as rows, their attempts are drawn in the rows they replace.
    package internal(set) var hiddenRoots: Set<Int> = []

    /// Rows above restarted rows, judged again from their children's newest attempts
    /// (`rejudge()`): the state such a row is drawn with.
    package internal(set) var rejudged: [Int: DisplayState] = [:]
    /// The fractions of the rows in `rejudged`: the weighted mean of their child rows'
    /// newest attempts, so a group whose restart runs shows the work done, not its old 100 %.
    package internal(set) var rejudgedFractions: [Int: Double] = [:]
    /// `counts` as `rejudge()` worked them out (nil: not yet).
    var rejudgedCounts: [Int]?
    /// The event sequence `rejudged` was worked out at.
    var rejudgedSequence: UInt64 = .max

    /// The node drawn in `row`: the newest attempt of the node it is named by (that node
    /// itself unless restarted).
    @inline(__always)
    package func shownNode(_ row: RowIndex) -> NodeIndex {
        NodeIndex(newestAttempt(row.rawValue))
    }

    /// The newest attempt of node `n` (`n` itself unless restarted), on raw ids.
    @inline(__always)
    func newestAttempt(_ n: Int) -> Int {
        attempts.isEmpty ? n : attempts[n]?.last ?? n
    }
    /// What retention dropped under each node, by raw id (the last `summary` event of each).
    package internal(set) var droppedSummaries: [Int: ChildSummary] = [:]
    /// What retention dropped of roots, by sanitized root name.
    package internal(set) var droppedRoots: [String: ChildSummary] = [:]
    /// Nodes retention dropped per `DisplayState.rawValue` (as the summaries count them).
    var droppedCounts = [Int](repeating: 0, count: DisplayState.allCases.count)
    /// Ids that entered `executing`, in order; settled ones are dropped lazily.
    var executingOrder: [Int32] = []
    /// Subtree-count deltas not yet carried to the ancestors (`withDeferredRollUp`); nil when
    /// every change goes up at once.
    var pendingRollUp: [Int32: SubtreeCounts]?
    /// While deferring (`withDeferredRollUp`): parents whose children's `index` is stale from
    /// that position on (`flushReindex`). A server's oldest request dropped from the front
    /// of thousands of siblings renumbered them all, per request.
    var pendingReindex: [Int32: Int32] = [:]

    package init() {}

    /// Number of live nodes.
    public var liveCount: Int { nodeCounts.reduce(0, +) + uncountedLive }

    /// Whether `id` names a live node.
    package func contains(_ id: Int) -> Bool {
        id >= 0 && id < nodes.count && nodes.read(id) { $0.exists }
    }

    /// The node (must exist).
    package subscript(_ id: Int) -> Node {
        _read { yield nodes[id] }
    }

    /// Live roots in creation order.
    package var roots: [Int] {
        var out: [Int] = []
        forEachRoot {
            out.append($0)
            return true
        }
        return out
    }

    /// Calls `body` for each live root in order until it returns false.

    package func forEachRoot(_ body: (Int) -> Bool) {
        for slot in rootSlots {
            let id = Int(slot)
            if isRootSlot(id) && !body(id) { return }
        }
    }

    func isRootSlot(_ id: Int) -> Bool {
        id < nodes.count && nodes[id].exists && nodes[id].parent < 0
    }

    /// The newest node still executing, if any.
    package mutating func newestExecuting() -> Int? {
        while let last = executingOrder.last {
            let id = Int(last)
            if contains(id) && nodes[id].state == .executing { return id }
            executingOrder.removeLast()
        }
        return nil
    }

    /// Overall weighted progress: the weighted mean of the roots' fractions as their rows
    /// show them (restarts' holders left out; nil: no tasks).
    package var overallProgress: Double? {
        var sum = 0.0
        var weights = 0.0
        var plain = 0.0
        var n = 0
        forEachRoot { id in
            if !hiddenRoots.isEmpty && hiddenRoots.contains(id) { return true }
            let node = nodes[id]
            let f = rejudgedFractions[id] ?? (node.state == .completed && !node.failed ? 1 : node.fraction)
            sum += node.weight * f
            weights += node.weight
            plain += f
            n += 1
            return true
        }
        if n == 0 { return nil }
        return weights > 0 ? sum / weights : plain / Double(n)
    }

    /// When node `id` started its work: nil while it waits for a slot (`queued`), else when
    /// it left the queue, or when it started executing. Time-based progress counts from here.
    package func workStart(_ id: Int) -> Double? {
        let n = nodes[id]
        if n.info == CommandSlots.queuedInfo { return nil }
        if !runningSince.isEmpty, let t = runningSince[id] { return t }
        return n.startedAt.isNaN ? nil : n.startedAt
    }

    /// Seeds the model from a snapshot (for viewers that join a running graph).
    public init(snapshot: GraphSnapshot) {
        self.init()
        for id in snapshot.nodes.keys.sorted() {
            let n = snapshot.nodes[id]!
            ensure(id.rawValue)
            var node = Node()
            node.exists = true
            node.kind = n.kind
            node.name = Sanitizer.clean(n.name)
            node.weight = n.weight
            node.state = n.state
            node.failed = n.failed
            node.fraction = n.progress.fraction
            node.info = n.progress.info
            node.message = n.message
            node.counted = Self.isCounted(kind: n.kind)
            nodes[id.rawValue] = node
            countNode(node.display, node.counted, 1)
        }
        for root in snapshot.roots where contains(root.rawValue) {
            nodes[root.rawValue].index = Int32(rootSlots.count)
            rootSlots.append(Int32(root.rawValue))
        }
        for (id, n) in snapshot.nodes {
            nodes[id.rawValue].parent = Int32(n.parent?.rawValue ?? -1)
            nodes[id.rawValue].children = n.children.map { Int32($0.rawValue) }
            for (i, c) in n.children.enumerated() where contains(c.rawValue) {
                nodes[c.rawValue].index = Int32(i)
            }
        }
        recountSubtrees()
        for id in snapshot.nodes.keys.sorted() where nodes[id.rawValue].state.isSettled {
            markSkippedBelow(id.rawValue)
        }
        seedSummaries(snapshot)
        sequence = snapshot.sequence
        for (id, list) in snapshot.warnings {
            for rule in list.keys.sorted() { warned(id: id, rule: rule, text: list[rule], time: time) }
        }
        structureVersion = 1
    }

    mutating func ensure(_ id: Int) {
        nodes.ensure(id)
    }
}

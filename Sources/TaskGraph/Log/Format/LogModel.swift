/// A compact copy of a graph's nodes, folded from events (the public `GraphFold`; a
/// `GraphReplica` is a view over one): what the replay reader rebuilds states with, what a
/// log's `snapshot` lines hold, and what the recorder's own `RecorderModel` gives its nodes
/// as. Nodes live in a dense array; ids map to slots through a flat table (every update an
/// array access, not a hash) that only grows while ids stay dense; ids far beyond the nodes
/// present (a hostile log's id 16777215) go to a dictionary, so memory and time follow the
/// nodes, not the largest id.
public struct LogModel: Sendable {
    /// One node as a log describes it (a `snapshot` line's node, or one folded from events).
    public struct Node: Sendable, Equatable {
        /// The node's id in the recorded graph.
        public var id: Int32
        /// The parent's id, -1 for a root.
        public var parent: Int32 = -1
        /// The node's state.
        public var state: TaskState = .notExecuted
        /// Set with `state == .completed` when the node failed.
        public var failed = false
        /// False once the node was dropped.
        public var live = true
        /// What the node is (see ``NodeKind``).
        public var kind: String
        /// The node's name.
        public var name: String
        /// The node's weight in its parent's progress.
        public var weight: Double
        /// Last reported progress (0...1) and its text.
        public var fraction: Double = 0
        /// The text of the last progress report, if it had one.
        public var info: String?
        /// The failure or cancellation message.
        public var message: String?
        /// Child ids in order.
        public var children: [Int32] = []
        /// For a `ref` node: the shared node it stands for; -1 otherwise.
        public var refOf: Int32 = -1
        /// For a restart's new attempt (an `attempt` event): the node whose row it takes; -1
        /// otherwise.
        public var attemptOf: Int32 = -1
        /// For a node whose start a snapshot gives (`started`): when it began, in the log's
        /// time (earlier than the snapshot, possibly before the log began: < 0).
        public var started: Double?
        /// For a settled node whose end a snapshot gives (`ended`): when it settled, in the
        /// log's time.
        public var ended: Double?
        /// A span's attributes (the last `attributes` event), empty for most nodes.
        public var attributes: [NodeAttribute] = []
        /// What the node has cost so far (the last `usage` event), nil when never reported.
        public var usage: NodeUsage?
        /// The node's current warnings (`warn` events): each rule's text. Empty for most nodes.
        public var warnings: [String: String] = [:]
        /// What the children retention dropped add up to (the last `summary` event of the node).
        public var droppedChildren: ChildSummary?

        /// A live, not yet executed node without parent or children.
        public init(id: Int32, kind: String, name: String, weight: Double) {
            self.id = id
            self.kind = kind
            self.name = name
            self.weight = weight
        }
    }

    /// Largest node id accepted: ids are kept as `Int32`. Far ids cost a dictionary entry,
    /// not a table slot per smaller id, so a long-running program's ids (past 2^24 after
    /// sixteen million tasks) are read like small ones.
    static let maxID = Int(Int32.max)

    /// `id` as a model keeps it, nil for an id it does not keep (negative or past `maxID`).
    static func kept(_ id: Int) -> Int32? {
        id >= 0 && id <= maxID ? Int32(truncatingIfNeeded: id) : nil
    }

    private(set) var nodes: [Node] = []
    /// Slots of ids `slotBase ..< slotBase + slotOf.count` (-1: none).
    private var slotOf: [Int32] = []
    /// The first id of the flat table: 0 until dropped nodes were compacted away.
    private var slotBase = 0
    /// Slots of ids outside the flat table.
    private var sparse: [Int: Int32] = [:]
    private(set) var liveCount = 0
    /// The dropped finished roots' summaries by root name (the last `summary` event of each).
    public internal(set) var droppedRoots: [String: ChildSummary] = [:]

    /// An empty model.
    public init() {}

    /// The slot of a live node, nil when unknown or dropped.
    @inline(__always)
    func slot(_ id: Int) -> Int? {
        let s: Int
        let k = id &- slotBase
        if k >= 0 && k < slotOf.count {
            s = Int(slotOf[k])
        } else if id >= 0, !sparse.isEmpty, let t = sparse[id] {
            s = Int(t)
        } else {
            return nil
        }
        return s >= 0 && nodes[s].live ? s : nil
    }

    func contains(_ id: Int) -> Bool { slot(id) != nil }

    subscript(id: Int) -> Node? { slot(id).map { nodes[$0] } }

    /// Adds a node (replacing a dropped one with the same id). Caller checks `id <= maxID`.
    @discardableResult
    public mutating func add(_ node: Node) -> Int {
        let id = Int(node.id)
        let k = id - slotBase
        if k >= slotOf.count && k < 2 * nodes.count + 4096 {
            slotOf.append(contentsOf: repeatElement(-1, count: k + 1 - slotOf.count))
            if !sparse.isEmpty {
                for (i, v) in sparse where i - slotBase >= 0 && i - slotBase < slotOf.count {
                    slotOf[i - slotBase] = v
                    sparse[i] = nil
                }
            }
        }
        let inTable = k >= 0 && k < slotOf.count
        let existing = inTable ? Int(slotOf[k]) : Int(sparse[id] ?? -1)
        if existing >= 0 {
            if !nodes[existing].live { liveCount += 1 }
            nodes[existing] = node
            return existing
        }
        if inTable { slotOf[k] = Int32(nodes.count) } else { sparse[id] = Int32(nodes.count) }
        nodes.append(node)
        liveCount += 1
        return nodes.count - 1
    }

    /// Inserts `child` into `parent`'s children at `index` (clamped), detaching it from a
    /// previous parent first. Both must exist.
    mutating func attach(_ child: Int, to parent: Int, at index: Int) {
        guard let c = slot(child), let p = slot(parent) else { return }
        let old = Int(nodes[c].parent)
        if old >= 0, let o = slot(old) {
            nodes[o].children.removeAll { $0 == Int32(child) }
        }
        nodes[c].parent = Int32(parent)
        let count = nodes[p].children.count
        if index >= count {
            nodes[p].children.append(Int32(child))
        } else {
            nodes[p].children.insert(Int32(child), at: max(0, index))
        }
    }

    mutating func drop(_ ids: [Int]) {
        for id in ids {
            guard let s = slot(id) else { continue }
            let p = Int(nodes[s].parent)
            if p >= 0, let ps = slot(p) { nodes[ps].children.removeAll { $0 == Int32(id) } }
            nodes[s].live = false
            nodes[s].children = []
            liveCount -= 1
        }
        compactIfMostlyDropped()
    }

    /// Forgets the dropped nodes once they are most of the table: a stream from a program
    /// with retention (an attached server) drops as many nodes as it adds, for as long as it
    /// runs, and a viewer's model grew by every request it had seen. The flat table then
    /// covers the newest ids only (twice the live nodes, plus 4,096); older live ids go to
    /// `sparse`. Slots change: no caller keeps one across a `drop`.
    private mutating func compactIfMostlyDropped() {
        let dropped = nodes.count - liveCount
        guard dropped >= 16_384, dropped > 2 * liveCount else { return }
        let live = liveNodesByID()
        let newest = live.last.map { Int($0.id) } ?? -1
        slotBase = Swift.max(0, newest + 1 - (2 * live.count + 4096))
        slotOf = [Int32](repeating: -1, count: Swift.max(0, newest + 1 - slotBase))
        sparse = [:]
        nodes = []
        nodes.reserveCapacity(live.count)
        liveCount = 0
        for n in live { add(n) }
    }

    /// Calls `body(id, slot)` for every slot in ascending id order.
    private func forEachSlotByID(_ body: (Int, Int) -> Void) {
        let outside = sparse.isEmpty ? [] : sparse.sorted(by: { $0.key < $1.key })
        var o = 0
        while o < outside.count && outside[o].key < slotBase {
            body(outside[o].key, Int(outside[o].value))
            o += 1
        }
        for k in 0..<slotOf.count {
            let s = Int(slotOf[k])
            if s >= 0 { body(slotBase + k, s) }
        }
        while o < outside.count {
            body(outside[o].key, Int(outside[o].value))
            o += 1
        }
    }

    /// Live nodes in ascending id order.
    public func liveNodesByID() -> [Node] {
        var out: [Node] = []
        out.reserveCapacity(liveCount)
        forEachSlotByID { _, s in
            if nodes[s].live { out.append(nodes[s]) }
        }
        return out
    }

    /// Calls `body` with each live node in ascending id order, without copying them out.
    func forEachLiveByID(_ body: (Node) -> Void) {
        forEachSlotByID { _, s in
            if nodes[s].live { body(nodes[s]) }
        }
    }

    /// Live root ids (no parent) in ascending order.
    public var rootIDs: [Int] {
        var out: [Int] = []
        forEachSlotByID { id, s in
            if nodes[s].live, nodes[s].parent < 0 { out.append(id) }
        }
        return out
    }

    /// The state as a `GraphSnapshot` (what `Graph.snapshot()` gives for the same history).
    public func snapshot(sequence: UInt64) -> GraphSnapshot {
        var out: [NodeID: GraphNode] = [:]
        out.reserveCapacity(liveCount)
        var roots: [NodeID] = []
        forEachSlotByID { id, s in
            guard nodes[s].live else { return }
            let n = nodes[s]
            let nid = NodeID(id)
            var node = GraphNode(
                id: nid, kind: n.kind, parent: n.parent >= 0 ? NodeID(Int(n.parent)) : nil,
                children: n.children.map { NodeID(Int($0)) }, name: n.name, weight: n.weight,
                state: n.state, failed: n.failed, progress: TaskProgress(n.fraction, info: n.info),
                message: n.message, refOf: n.refOf >= 0 ? NodeID(Int(n.refOf)) : nil)
            node.droppedChildren = n.droppedChildren
            out[nid] = node
            if n.parent < 0 { roots.append(nid) }
        }
        var snapshot = GraphSnapshot(nodes: out, roots: roots, sequence: sequence)
        forEachSlotByID { id, s in
            if nodes[s].live, !nodes[s].warnings.isEmpty { snapshot.warnings[NodeID(id)] = nodes[s].warnings }
        }
        snapshot.droppedRoots = droppedRoots
        return snapshot
    }

    /// A model holding exactly the nodes of `snapshot`.
    init(_ snapshot: GraphSnapshot) {
        for id in snapshot.nodes.keys.sorted() {
            let n = snapshot.nodes[id]!
            guard let small = LogModel.kept(id.rawValue) else { continue } // past maxID: not kept
            var node = Node(id: small, kind: n.kind, name: n.name, weight: n.weight)
            node.parent = n.parent.flatMap { LogModel.kept($0.rawValue) } ?? -1
            node.state = n.state
            node.failed = n.failed
            node.fraction = n.progress.fraction
            node.info = n.progress.info
            node.message = n.message
            node.children = n.children.compactMap { LogModel.kept($0.rawValue) }
            if let of = n.refOf.flatMap({ LogModel.kept($0.rawValue) }) { node.refOf = of }
            node.warnings = snapshot.warnings[id] ?? [:]
            node.droppedChildren = n.droppedChildren
            add(node)
        }
        droppedRoots = snapshot.droppedRoots
    }

    /// Counts by outcome, as the `end` event and the headless summary report them.
    func summary(duration: Double) -> LogSummary {
        var s = LogSummary()
        s.duration = duration
        var skipped = SkippedNodes()
        forEachSlotByID { id, slot in
            guard nodes[slot].live, NodeKind.isCounted(nodes[slot].kind) else { return }
            let n = nodes[slot]
            switch n.state {
            case .completed: if n.failed { s.failed += 1 } else { s.succeeded += 1 }
            case .cancelled: s.cancelled += 1
            case .executing: s.executing += 1
            case .notExecuted:
                let isSkipped = skipped.isSkipped(
                    id, limit: nodes.count, state: { self.slot($0).map { nodes[$0].state } }, parent: { parentOf($0) })
                if isSkipped { s.skipped += 1 } else { s.notExecuted += 1 }
            }
        }
        s.outcome = outcome
        return s
    }

    /// The roots' outcome: "succeeded" when every root succeeded, "failed" when one failed,
    /// "cancelled" when one was cancelled (and none failed), else "unfinished".
    var outcome: String {
        var result = "succeeded"
        var any = false
        for id in rootIDs {
            guard let n = self[id] else { continue }
            any = true
            switch n.state {
            case .completed where n.failed: result = "failed"
            case .completed: break
            case .cancelled: if result == "succeeded" { result = "cancelled" }
            case .notExecuted, .executing: return "unfinished"
            }
        }
        return any ? result : "succeeded"
    }
}

/// The figures of an `end` event.
struct LogSummary: Sendable, Equatable {
    var succeeded = 0
    var failed = 0
    var cancelled = 0
    var skipped = 0
    var notExecuted = 0
    var executing = 0
    var duration = 0.0
    var outcome = "unfinished"
    init() {}
}

extension LogModel {
    /// The parent id of a live node (-1 for a root or an unknown node).
    @inline(__always)
    func parentOf(_ id: Int) -> Int {
        guard let s = slot(id) else { return -1 }
        return Int(nodes[s].parent)
    }

    /// Replaces the children order of a live node.
    mutating func setChildren(of id: Int, _ children: [Int32]) {
        guard let s = slot(id) else { return }
        nodes[s].children = children
    }
}

/// The fold: changes about unknown nodes are ignored (a log may start late).
extension LogModel: GraphFold {
    @usableFromInline package mutating func nodeAdded(
        id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double
    ) {
        guard id.rawValue >= 0, id.rawValue <= LogModel.maxID else { return }
        add(Node(id: Int32(id.rawValue), kind: kind, name: name, weight: weight))
        if let parent, contains(parent.rawValue) {
            attach(id.rawValue, to: parent.rawValue, at: index ?? Int.max)
        }
    }

    @usableFromInline package mutating func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double) {
        attach(id.rawValue, to: parent.rawValue, at: index)
    }

    @usableFromInline package mutating func weightChanged(id: NodeID, weight: Double, time: Double) {
        if let s = slot(id.rawValue) { nodes[s].weight = weight }
    }

    @usableFromInline package mutating func stateChanged(
        id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double
    ) {
        guard let s = slot(id.rawValue) else { return }
        nodes[s].state = state
        nodes[s].failed = failed
        nodes[s].message = failed ? message : nil
        if state == .completed && !failed { nodes[s].fraction = 1 }
    }

    @usableFromInline package mutating func progressReported(id: NodeID, progress: TaskProgress, time: Double) {
        guard let s = slot(id.rawValue) else { return }
        nodes[s].fraction = progress.fraction
        nodes[s].info = progress.info
    }

    @usableFromInline package mutating func nodesDropped(ids: [NodeID], time: Double) {
        drop(ids.map(\.rawValue))
    }

    @usableFromInline package mutating func refSet(id: NodeID, of: NodeID, time: Double) {
        guard let s = slot(id.rawValue), of.rawValue >= 0, of.rawValue <= LogModel.maxID else { return }
        nodes[s].refOf = Int32(of.rawValue)
    }

    @usableFromInline package mutating func warned(id: NodeID, rule: String, text: String?, time: Double) {
        guard let s = slot(id.rawValue) else { return }
        nodes[s].warnings[rule] = text
    }

    @usableFromInline package mutating func attributesSet(id: NodeID, attributes: [NodeAttribute], time: Double) {
        guard let s = slot(id.rawValue) else { return }
        nodes[s].attributes = attributes
    }

    @usableFromInline package mutating func attemptRecorded(id: NodeID, of: NodeID, time: Double) {
        guard let s = slot(id.rawValue), of.rawValue >= 0, of.rawValue <= LogModel.maxID else { return }
        nodes[s].attemptOf = Int32(of.rawValue)
    }

    @usableFromInline package mutating func renamed(id: NodeID, name: String, time: Double) {
        if let s = slot(id.rawValue) { nodes[s].name = name }
    }

    @usableFromInline package mutating func usageReported(id: NodeID, usage: NodeUsage, time: Double) {
        if let s = slot(id.rawValue) { nodes[s].usage = usage }
    }

    @usableFromInline package mutating func summarized(
        id: NodeID?, root: String?, summary: ChildSummary, time: Double
    ) {
        if let id {
            if let s = slot(id.rawValue) { nodes[s].droppedChildren = summary }
        } else if let root {
            droppedRoots[root] = summary
        }
    }
}

/// One node as a snapshot needs it, copied from its record while the stripes are locked: a
/// struct copy and a few retains, no allocation (the child list's array is shared).
struct NodeCapture {
    let id: Int
    let kindIndex: UInt8
    let parent: Int
    let children: ChildList
    let name: String
    let weight: Double
    let state: TaskState
    let failed: Bool
    let fraction: Double
    let info: String?
    let message: String?
    let refOf: Int?
    let startTime: Double?
    let endTime: Double?
    let droppedChildren: ChildSummary?

    init(
        record r: NodeRecord, message: String?, refOf: Int?, startTime: Double? = nil, endTime: Double? = nil,
        droppedChildren: ChildSummary? = nil
    ) {
        id = r.id
        kindIndex = r.kindIndex
        parent = r.parent
        children = r.children
        name = r.name
        weight = r.weight
        state = r.state
        failed = r.failed
        fraction = r.fraction
        info = r.info
        self.message = message
        self.refOf = refOf
        self.startTime = startTime
        self.endTime = endTime
        self.droppedChildren = droppedChildren
    }
}

/// Every live node of a graph and the sequence number they reflect, captured at one instant;
/// `snapshot()` builds the public `GraphSnapshot` from it on the caller's thread, with no
/// lock held.
struct GraphCapture {
    let nodes: [NodeCapture]
    let sequence: UInt64
    /// The graph's current warnings by raw id (`CancelWatch.current`).
    var warnings: [Int: [String: String]] = [:]
    var droppedRoots: [String: ChildSummary] = [:]

    /// Empty storage for `count` captured nodes, its pages touched here, before the graph is
    /// locked: a fresh 24 MB for 200,000 nodes otherwise takes its page faults under the locks.
    static func storage(for count: Int) -> [NodeCapture] {
        [NodeCapture](unsafeUninitializedCapacity: count + count / 8 + 16) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            while offset < raw.count {
                raw[offset] = 0
                offset += 4096
            }
            initialized = 0
        }
    }

    func snapshot() -> GraphSnapshot {
        var byID: [NodeID: GraphNode] = [:]
        byID.reserveCapacity(nodes.count)
        var roots: [NodeID] = []
        for n in nodes {
            let nid = NodeID(n.id)
            var node = GraphNode(
                id: nid, kind: NodeKind.all[Int(n.kindIndex)], parent: n.parent >= 0 ? NodeID(n.parent) : nil,
                children: Array(n.children), name: n.name, weight: n.weight, state: n.state,
                failed: n.failed, progress: TaskProgress(n.fraction, info: n.info),
                message: n.message, refOf: n.refOf.map { NodeID($0) }, startTime: n.startTime,
                endTime: n.endTime)
            node.droppedChildren = n.droppedChildren
            byID[nid] = node
            if n.parent < 0 { roots.append(nid) }
        }
        roots.sort { $0.rawValue < $1.rawValue }
        var snapshot = GraphSnapshot(nodes: byID, roots: roots, sequence: sequence)
        for (id, list) in warnings where byID[NodeID(id)] != nil { snapshot.warnings[NodeID(id)] = list }
        snapshot.droppedRoots = droppedRoots
        return snapshot
    }
}

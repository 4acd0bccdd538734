/// Rebuilds a graph's state from its events alone: what a replay, a remote viewer or a
/// test uses. Applying the events after `snapshot.sequence` to a replica made from that
/// snapshot gives the graph's later snapshots exactly.
public struct GraphReplica: Sendable {
    struct Node: Sendable {
        var kind: String
        var parent: NodeID?
        var children: [NodeID]
        var name: String
        var weight: Double
        var state: TaskState
        var failed: Bool
        var progress: TaskProgress
        var message: String?
        var refOf: NodeID?
    }

    var nodes: [NodeID: Node] = [:]
    var rootOrder: [NodeID] = []
    /// The sequence number of the last event applied.
    public private(set) var sequence: UInt64 = 0
    /// The time of the last event applied.
    public private(set) var time: Double = 0

    /// An empty replica (no nodes, sequence 0): apply a graph's events from the first.
    public init() {}

    /// Starts from a snapshot.
    public init(_ snapshot: GraphSnapshot) {
        for (id, n) in snapshot.nodes {
            nodes[id] = Node(
                kind: n.kind, parent: n.parent, children: n.children, name: n.name,
                weight: n.weight, state: n.state, failed: n.failed,
                progress: n.progress, message: n.message, refOf: n.refOf)
        }
        rootOrder = snapshot.roots
        sequence = snapshot.sequence
    }

    /// The number of nodes.
    public var count: Int { nodes.count }

    /// Applies one event. Events about unknown nodes are ignored (a log may start late).
    public mutating func apply(_ event: GraphEvent) {
        sequence = event.sequence
        time = event.time
        switch event.change {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            nodes[id] = Node(
                kind: kind, parent: nil, children: [], name: name, weight: weight,
                state: .notExecuted, failed: false, progress: .zero, message: nil)
            if let parent, nodes[parent] != nil {
                attach(id, to: parent, at: index ?? Int.max)
            } else {
                rootOrder.append(id)
            }
        case .parentSet(let id, let parent, let index):
            guard nodes[id] != nil, nodes[parent] != nil else { return }
            if let old = nodes[id]!.parent {
                nodes[old]?.children.removeAll { $0 == id }
            } else if let i = rootOrder.firstIndex(of: id) {
                rootOrder.remove(at: i)
            }
            attach(id, to: parent, at: index)
        case .weightChanged(let id, let weight):
            nodes[id]?.weight = weight
        case .stateChanged(let id, let state, let failed, let message):
            guard nodes[id] != nil else { return }
            nodes[id]!.state = state
            nodes[id]!.failed = failed
            nodes[id]!.message = message
            if state == .completed && !failed { nodes[id]!.progress.fraction = 1 }
        case .progress(let id, let progress):
            nodes[id]?.progress = progress
        case .ref(let id, let of):
            nodes[id]?.refOf = of
        case .renamed(let id, let name):
            nodes[id]?.name = name
        case .cancelRequested, .output, .attributes, .attempt:
            break
        case .dropped(let ids):
            let gone = Set(ids)
            for id in ids {
                if let p = nodes[id]?.parent, !gone.contains(p) {
                    nodes[p]?.children.removeAll { $0 == id }
                }
                nodes[id] = nil
            }
            rootOrder.removeAll { gone.contains($0) }
        }
    }

    private mutating func attach(_ id: NodeID, to parent: NodeID, at index: Int) {
        nodes[id]!.parent = parent
        var children = nodes[parent]!.children
        children.insert(id, at: Swift.max(0, Swift.min(index, children.count)))
        nodes[parent]!.children = children
    }

    /// The current state as a snapshot; roots in ascending id order, as `Graph.snapshot()`
    /// gives them (threads claim ids in blocks, so creation order can differ).
    public var snapshot: GraphSnapshot {
        var out: [NodeID: GraphNode] = [:]
        out.reserveCapacity(nodes.count)
        for (id, n) in nodes {
            out[id] = GraphNode(
                id: id, kind: n.kind, parent: n.parent, children: n.children,
                name: n.name, weight: n.weight, state: n.state, failed: n.failed,
                progress: n.progress, message: n.message, refOf: n.refOf)
        }
        return GraphSnapshot(nodes: out, roots: rootOrder.sorted { $0.rawValue < $1.rawValue }, sequence: sequence)
    }
}

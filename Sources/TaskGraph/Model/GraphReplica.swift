/// Rebuilds a graph's state from its events alone: what a test, or a program that keeps a
/// copy of another's graph, uses. Applying the events after `snapshot.sequence` to a
/// replica made from that snapshot gives the graph's later snapshots exactly.
///
/// A view over `LogModel` (the fold the replay reader uses): it adds the sequence and time
/// of the last event and the snapshot's shape.
public struct GraphReplica: Sendable {
    var model = LogModel()
    /// The sequence number of the last event applied.
    public private(set) var sequence: UInt64 = 0
    /// The time of the last event applied.
    public private(set) var time: Double = 0

    /// An empty replica (no nodes, sequence 0): apply a graph's events from the first.
    public init() {}

    /// Starts from a snapshot.
    public init(_ snapshot: GraphSnapshot) {
        model = LogModel(snapshot)
        sequence = snapshot.sequence
    }

    /// The number of nodes.
    public var count: Int { model.liveCount }

    /// Applies one event. Events about unknown nodes are ignored (a log may start late).
    public mutating func apply(_ event: GraphEvent) {
        sequence = event.sequence
        time = event.time
        model.apply(event.change, time: event.time)
    }

    /// The current state as a snapshot; roots in ascending id order, as `Graph.snapshot()`
    /// gives them (threads claim ids in blocks, so creation order can differ).
    public var snapshot: GraphSnapshot { model.snapshot(sequence: sequence) }
}

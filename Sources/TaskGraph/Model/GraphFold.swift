/// Something that keeps node state folded from a graph's changes: the one contract every
/// consumer of `GraphChange` implements (`LogModel`, and `GraphReplica` over it; the
/// recorder's `RecorderModel`; taskview's `TreeModel`; the span tracer's table; the exports).
///
/// One requirement a kind of change; `apply(_:time:)` is the one `switch` over `GraphChange`
/// that calls them. A new kind of change is a new requirement here, with a default below that
/// ignores it, and a case in `apply` and `mappingIDs`: only the folds that care implement it
/// (CONTRIBUTING.md, "Adding a graph event kind"). Hooks are told the change's time (seconds
/// on the graph's clock, or the log's); most folds ignore it.
///
/// `apply` is `@inlinable` so that each fold gets its own specialized copy, also across
/// modules: the recorder's writer thread and the dashboard call it per event, and neither
/// may pay an existential call or an allocation per event for the contract. Hence the
/// protocol is `@usableFromInline`, and so must be the hooks of a public conforming type
/// (`@usableFromInline package mutating func`).
@usableFromInline
package protocol GraphFold {
    /// A node was created (`GraphChange.added`).
    mutating func nodeAdded(
        id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double)
    /// A composite adopted the node as its subtask number `index` (`GraphChange.parentSet`).
    mutating func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double)
    /// The node's weight changed (`GraphChange.weightChanged`).
    mutating func weightChanged(id: NodeID, weight: Double, time: Double)
    /// The node's state changed (`GraphChange.stateChanged`).
    mutating func stateChanged(id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double)
    /// The node's progress changed (`GraphChange.progress`).
    mutating func progressReported(id: NodeID, progress: TaskProgress, time: Double)
    /// Somebody asked to cancel the node (`GraphChange.cancelRequested`). Default: ignored.
    mutating func cancelRequested(id: NodeID, source: String, time: Double)
    /// Finished root subtrees were released (`GraphChange.dropped`).
    mutating func nodesDropped(ids: [NodeID], time: Double)
    /// A node's process wrote a line (`GraphChange.output`). Default: ignored.
    mutating func outputWritten(id: NodeID, stream: OutputStreamName, text: String, time: Double)
    /// The `ref` node `id` stands for `of` (`GraphChange.ref`).
    mutating func refSet(id: NodeID, of: NodeID, time: Double)
    /// The node's attributes, replacing earlier ones (`GraphChange.attributes`). Default:
    /// ignored.
    mutating func attributesSet(id: NodeID, attributes: [NodeAttribute], time: Double)
    /// The node is a new attempt of `of` (`GraphChange.attempt`). Default: ignored.
    mutating func attemptRecorded(id: NodeID, of: NodeID, time: Double)
    /// The node was renamed (`GraphChange.renamed`).
    mutating func renamed(id: NodeID, name: String, time: Double)
    /// What the node has cost so far (`GraphChange.usage`). Default: ignored.
    mutating func usageReported(id: NodeID, usage: NodeUsage, time: Double)
    /// A warning about the node began, or ended when `text` is nil (`GraphChange.warn`).
    /// Default: ignored.
    mutating func warned(id: NodeID, rule: String, text: String?, time: Double)
    /// A log record filed under the node (`GraphChange.log`). Default: ignored.
    mutating func logRecorded(id: NodeID, record: NodeLogRecord, time: Double)
    /// What retention dropped under node `id`, or of the roots named `root`, adds up to
    /// (`GraphChange.summary`). Default: ignored.
    mutating func summarized(id: NodeID?, root: String?, summary: ChildSummary, time: Double)
}

extension GraphFold {
    /// Ignores the cancel request (the state change that may follow is what counts).
    @inlinable
    package mutating func cancelRequested(id: NodeID, source: String, time: Double) {}

    /// Ignores the line: output changes no node state.
    @inlinable
    package mutating func outputWritten(id: NodeID, stream: OutputStreamName, text: String, time: Double) {}

    /// Ignores the attributes: they change no node state.
    @inlinable
    package mutating func attributesSet(id: NodeID, attributes: [NodeAttribute], time: Double) {}

    /// Ignores the attempt: it changes no node state, only how views draw it.
    @inlinable
    package mutating func attemptRecorded(id: NodeID, of: NodeID, time: Double) {}

    /// Ignores the usage: it changes no node state.
    @inlinable
    package mutating func usageReported(id: NodeID, usage: NodeUsage, time: Double) {}
    /// Ignores the warning: it changes no task state.
    @inlinable
    package mutating func warned(id: NodeID, rule: String, text: String?, time: Double) {}
    /// Ignores the record: it changes no node state.
    @inlinable
    package mutating func logRecorded(id: NodeID, record: NodeLogRecord, time: Double) {}
    /// Ignores the summary: folds that show or keep it implement it.
    @inlinable
    package mutating func summarized(id: NodeID?, root: String?, summary: ChildSummary, time: Double) {}

    /// Applies one change: the one `switch` over `GraphChange` (see `GraphFold`). `change` is
    /// taken apart, not copied: its strings move into the hooks' arguments. `time`: when it
    /// happened (0 for folds that keep no times).
    @inlinable @inline(__always)
    package mutating func apply(_ change: consuming GraphChange, time: Double = 0) {
        switch consume change {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            nodeAdded(id: id, kind: kind, name: name, weight: weight, parent: parent, index: index, time: time)
        case .parentSet(let id, let parent, let index):
            parentSet(id: id, parent: parent, index: index, time: time)
        case .weightChanged(let id, let weight):
            weightChanged(id: id, weight: weight, time: time)
        case .stateChanged(let id, let state, let failed, let message):
            stateChanged(id: id, state: state, failed: failed, message: message, time: time)
        case .progress(let id, let progress):
            progressReported(id: id, progress: progress, time: time)
        case .cancelRequested(let id, let source):
            cancelRequested(id: id, source: source, time: time)
        case .dropped(let ids):
            nodesDropped(ids: ids, time: time)
        case .output(let id, let stream, let text):
            outputWritten(id: id, stream: stream, text: text, time: time)
        case .ref(let id, let of):
            refSet(id: id, of: of, time: time)
        case .attributes(let id, let attributes):
            attributesSet(id: id, attributes: attributes, time: time)
        case .attempt(let id, let of):
            attemptRecorded(id: id, of: of, time: time)
        case .renamed(let id, let name):
            renamed(id: id, name: name, time: time)
        case .usage(let id, let usage):
            usageReported(id: id, usage: usage, time: time)
        case .warn(let id, let rule, let text):
            warned(id: id, rule: rule, text: text, time: time)
        case .log(let id, let record):
            logRecorded(id: id, record: record, time: time)
        case .summary(let id, let root, let summary):
            summarized(id: id, root: root, summary: summary, time: time)
        }
    }
}

extension GraphChange {
    /// The change with every node id passed through `map` (a view that renumbers another
    /// graph's nodes, as an attach session does); nil when an id it needs has no image. An
    /// `added` node's parent without an image becomes nil (the node is a root); a `dropped`
    /// list keeps the ids that have one (nil when none has).
    package func mappingIDs(_ map: (NodeID) -> NodeID?) -> GraphChange? {
        switch self {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            guard let i = map(id) else { return nil }
            return .added(id: i, kind: kind, name: name, weight: weight, parent: parent.flatMap(map), index: index)
        case .parentSet(let id, let parent, let index):
            guard let i = map(id), let p = map(parent) else { return nil }
            return .parentSet(id: i, parent: p, index: index)
        case .weightChanged(let id, let weight):
            return map(id).map { .weightChanged(id: $0, weight: weight) }
        case .stateChanged(let id, let state, let failed, let message):
            return map(id).map { .stateChanged(id: $0, state: state, failed: failed, message: message) }
        case .progress(let id, let progress):
            return map(id).map { .progress(id: $0, progress: progress) }
        case .cancelRequested(let id, let source):
            return map(id).map { .cancelRequested(id: $0, source: source) }
        case .dropped(let ids):
            let mapped = ids.compactMap(map)
            return mapped.isEmpty ? nil : .dropped(ids: mapped)
        case .output(let id, let stream, let text):
            return map(id).map { .output(id: $0, stream: stream, text: text) }
        case .ref(let id, let of):
            guard let i = map(id), let o = map(of) else { return nil }
            return .ref(id: i, of: o)
        case .attributes(let id, let attributes):
            return map(id).map { .attributes(id: $0, attributes: attributes) }
        case .attempt(let id, let of):
            guard let i = map(id), let o = map(of) else { return nil }
            return .attempt(id: i, of: o)
        case .renamed(let id, let name):
            return map(id).map { .renamed(id: $0, name: name) }
        case .usage(let id, let usage):
            return map(id).map { .usage(id: $0, usage: usage) }
        case .warn(let id, let rule, let text):
            return map(id).map { .warn(id: $0, rule: rule, text: text) }
        case .log(let id, let record):
            return map(id).map { .log(id: $0, record: record) }
        case .summary(let id, let root, let summary):
            guard let id else { return self }
            return map(id).map { .summary(id: $0, root: root, summary: summary) }
        }
    }
}

/// The header of a replay log (line 1).
public struct LogHeader: Sendable, Equatable {
    /// The format version (1); the reader refuses any other.
    public var version: Double = 1
    /// When recording began (ISO 8601, UTC): exported times are `created` plus each event's `t`.
    public var created: String?
    /// The program that wrote the log (`taskview 0.1.0`, `my-tool`).
    public var producer: String?
    /// The scenario a taskview run played, when it played one.
    public var scenario: String?
    /// The absolute path of the scenario file the session ran (`file`), or `demo:NAME`.
    public var file: String?
    /// The seed of a scenario run.
    public var seed: UInt64?
    /// The serving program's pid and name (attach streams).
    public var pid: Int?
    /// The name the serving program gave (`serve(at:name:allowCancel:)`).
    public var name: String?
    /// An empty header (version 1, no fields).
    public init() {}
}

/// A `key` line: a key that changed something, after `eventCount` events.
public struct ReplayKey: Sendable, Equatable {
    /// How many graph events came before the key.
    public var eventCount: Int
    /// When it was pressed (seconds on the recorded graph's clock).
    public var time: Double
    /// The key's name (`x`, `y`, `space`, ...).
    public var key: String
    /// The node it acted on, if any.
    public var node: NodeID?
}

/// The figures of an `end` line.
public struct ReplaySummary: Sendable, Equatable {
    /// Live nodes that succeeded.
    public var succeeded = 0
    /// Live nodes that failed.
    public var failed = 0
    /// Live nodes that were cancelled.
    public var cancelled = 0
    /// Nodes never executed under a parent that has settled.
    public var skipped = 0
    /// The other never-executed nodes.
    public var notExecuted = 0
    /// Nodes still executing when the log ended.
    public var executing = 0
    /// When the last root settled (seconds on the graph's clock), else the end time.
    public var duration = 0.0
    /// How the session ended: `succeeded`, `failed`, `cancelled` or `unfinished`.
    public var outcome = ""
    /// An empty summary (every count 0).
    public init() {}
}

/// A loaded, validated replay log: the graph events in order (each `GraphEvent.sequence` is
/// its 1-based position among the graph events, so a snapshot's `sequence` is the number of
/// events before it), the snapshots as seek checkpoints, the keys, and how it ended.
public struct ReplayLog: Sendable {
    struct Checkpoint: Sendable {
        /// Graph events before the snapshot.
        var eventCount: Int
        var time: Double
        /// The snapshot's nodes, already validated; the model is built when asked for, so
        /// loading a log does not copy every snapshot into a model.
        var nodes: [LogParser.SnapshotNode]
        /// The snapshot's `droppedRoots`.
        var droppedRoots: [String: ChildSummary] = [:]
        var model: LogModel {
            var model = (try? LogParser.buildModel(nodes)) ?? LogModel()
            model.droppedRoots = droppedRoots
            return model
        }
    }

    /// The file name, for messages and the dashboard header.
    public let name: String
    /// The log's header (line 1).
    public internal(set) var header = LogHeader()
    /// Every graph event (not snapshots, keys or `end`), in log order, built on demand
    /// from a compact store.
    public internal(set) var events = ReplayEvents()
    var checkpoints: [Checkpoint] = []
    /// The `key` lines: what a person pressed while it was recorded.
    public internal(set) var keys: [ReplayKey] = []
    /// The `end` line's summary; nil for a log of a crashed or killed session.
    public internal(set) var end: ReplaySummary?
    /// Set when the last line had no newline and was dropped: the seq of the last line kept.
    public internal(set) var truncatedAfterSeq: UInt64?
    /// Bad lines skipped (only with `skipBadLines`).
    public internal(set) var skippedLines = 0
    /// Time of the last line (seconds on the recorded graph's clock).
    public internal(set) var duration: Double = 0
    /// Seq of the last line kept.
    public internal(set) var lastSeq: UInt64 = 0
    /// The state after the last line, folded while loading; nil when the load was asked not
    /// to (`diff` reads only the events), and then folded again whenever it is asked for.
    var foldedFinalModel: LogModel?
    var finalModel: LogModel { foldedFinalModel ?? model(afterEvents: events.count) }

    init(name: String) { self.name = name }

    /// The number of graph events.
    public var eventCount: Int { events.count }

    /// Notices for stderr: truncation and skipped lines.
    public var notices: [String] {
        var out: [String] = []
        if let seq = truncatedAfterSeq { out.append("\(name): truncated after seq \(seq)") }
        if skippedLines > 0 {
            out.append("\(name): skipped \(skippedLines) bad line\(skippedLines == 1 ? "" : "s")")
        }
        return out
    }

    /// The state after the last line (the recorded final snapshot when the log has one).
    public var finalSnapshot: GraphSnapshot { finalModel.snapshot(sequence: UInt64(events.count)) }

    /// Whether every root settled (a log whose root never settled replays with exit 3).
    public var rootSettled: Bool {
        let roots = finalModel.rootIDs
        return !roots.isEmpty && roots.allSatisfy { finalModel[$0]?.state.isSettled ?? false }
    }

    /// "succeeded", "failed", "cancelled" or "unfinished", from the final state.
    public var outcome: String { rootSettled ? finalModel.outcome : "unfinished" }

    /// Whether a restart made new attempts (`attempt` events): the newest attempts then say
    /// how the run ended, which `outcome` (the roots as they are) does not.
    public var hasAttempts: Bool { events.containsAttempts }

    /// Number of events whose time is at most `time` (binary search).
    public func eventCount(atTime time: Double) -> Int {
        var lo = 0
        var hi = events.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if events.time(at: mid) <= time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The last checkpoint at or before `count` events.
    func checkpoint(atOrBefore count: Int) -> Checkpoint? {
        var lo = 0
        var hi = checkpoints.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if checkpoints[mid].eventCount <= count { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? checkpoints[lo - 1] : nil
    }

    /// The model after `count` events: the nearest snapshot, then at most
    /// max(N, 4 × nodes) events, whatever the log's length before it.
    func model(afterEvents count: Int) -> LogModel {
        let count = max(0, min(count, events.count))
        var model: LogModel
        var from: Int
        if let cp = checkpoint(atOrBefore: count) {
            model = cp.model
            from = cp.eventCount
        } else {
            model = LogModel()
            from = 0
        }
        while from < count {
            model.apply(events[from].change)
            from += 1
        }
        return model
    }

    /// The nodes of a snapshot the log holds before its first event (nodes that existed
    /// before recording began, or an attach stream's first picture), in id order; nil when
    /// the log starts from nothing.
    public var initialNodes: [LogModel.Node]? {
        checkpoint(atOrBefore: 0).map { $0.model.liveNodesByID() }
    }

    /// `initialNodes` as a `GraphSnapshot` (sequence 0).
    public var initialSnapshot: GraphSnapshot? {
        checkpoint(atOrBefore: 0).map { $0.model.snapshot(sequence: 0) }
    }

    /// The graph's snapshot after `count` events (seeking uses the log's snapshots).
    public func snapshot(afterEvents count: Int) -> GraphSnapshot {
        let count = max(0, min(count, events.count))
        return model(afterEvents: count).snapshot(sequence: UInt64(count))
    }

    /// The graph's snapshot at `time`: every event up to and including that time applied.
    public func snapshot(atTime time: Double) -> GraphSnapshot {
        snapshot(afterEvents: eventCount(atTime: time))
    }

    /// Events that rebuild the state after `count` events from nothing, for a consumer that
    /// only absorbs events (such as the dashboard's tree): adds in id order, adoptions in
    /// child order, then weights, progress and states. Their time is the time of that
    /// position and their sequence is `count`. Apply `events[count...]` after them.
    public func rebuildEvents(afterEvents count: Int) -> [GraphEvent] {
        let count = max(0, min(count, events.count))
        let model = model(afterEvents: count)
        let time = count > 0 ? events.time(at: count - 1) : 0
        let seq = UInt64(count)
        var out: [GraphEvent] = []
        let nodes = model.liveNodesByID()
        out.reserveCapacity(nodes.count * 3)
        for n in nodes {
            out.append(
                GraphEvent(
                    sequence: seq, time: time,
                    change: .added(
                        id: NodeID(Int(n.id)), kind: n.kind, name: n.name, weight: n.weight, parent: nil, index: nil)))
        }
        for n in nodes where n.refOf >= 0 {
            out.append(
                GraphEvent(
                    sequence: seq, time: time,
                    change: .ref(
                        id: NodeID(Int(n.id)), of: NodeID(Int(n.refOf)))))
        }
        for n in nodes {
            for (i, c) in n.children.enumerated() {
                out.append(
                    GraphEvent(
                        sequence: seq, time: time,
                        change: .parentSet(
                            id: NodeID(Int(c)), parent: NodeID(Int(n.id)), index: i)))
            }
        }
        for n in nodes where n.attemptOf >= 0 { // after the adoptions: the attempt's tree is whole
            out.append(
                GraphEvent(
                    sequence: seq, time: time, change: .attempt(id: NodeID(Int(n.id)), of: NodeID(Int(n.attemptOf)))))
        }
        for n in nodes {
            let id = NodeID(Int(n.id))
            if n.state == .executing || n.state == .completed {
                // Executing first, so consumers that track start times see one (the node's own
                // start when a snapshot gave it).
                out.append(
                    GraphEvent(
                        sequence: seq, time: n.state == .executing ? min(n.started ?? time, time) : time,
                        change: .stateChanged(
                            id: id, state: .executing, failed: false, message: nil)))
            }
        }
        // Settle children before parents so upward reasoning (skipped rows) sees final states.
        for n in nodes.reversed() where n.state.isSettled {
            out.append(
                GraphEvent(
                    sequence: seq, time: time,
                    change: .stateChanged(
                        id: NodeID(Int(n.id)), state: n.state, failed: n.failed, message: n.message)))
        }
        for n in nodes where !n.warnings.isEmpty {
            for rule in n.warnings.keys.sorted() {
                out.append(
                    GraphEvent(
                        sequence: seq, time: time,
                        change: .warn(id: NodeID(Int(n.id)), rule: rule, text: n.warnings[rule])))
            }
        }
        for n in nodes where n.fraction > 0 || n.info != nil {
            if n.state == .completed && !n.failed && n.fraction == 1 && n.info == nil { continue }
            out.append(
                GraphEvent(
                    sequence: seq, time: time,
                    change: .progress(
                        id: NodeID(Int(n.id)), progress: TaskProgress(n.fraction, info: n.info))))
        }
        for n in nodes {
            if let usage = n.usage {
                out.append(GraphEvent(sequence: seq, time: time, change: .usage(id: NodeID(Int(n.id)), usage: usage)))
            }
        }
        return out
    }

    /// Keys pressed at positions in `range` (event counts).
    public func keys(in range: Range<Int>) -> [ReplayKey] {
        keys.filter { range.contains($0.eventCount) }
    }
}

/// The line formats of docs/log-format.md. Each function appends exactly one line, newline
/// included.
extension LogBuffer {
    /// Line 1: `{"format":"taskgraph-log","version":1,"created":...,"producer":...}`.
    mutating func header(created: String, producer: String, scenario: String?, seed: UInt64?, file: String? = nil) {
        raw("{\"format\":\"taskgraph-log\",\"version\":1")
        nextKey("created")
        string(created)
        nextKey("producer")
        string(producer)
        if let scenario {
            nextKey("scenario")
            string(scenario)
        }
        if let seed {
            nextKey("seed")
            uint(seed)
        }
        if let file {
            nextKey("file")
            string(file)
        }
        raw("}\n")
    }

    @inline(__always)
    mutating func lineStart(seq: UInt64, t: Double, ev: StaticString) {
        raw("{\"seq\":")
        uint(seq)
        raw(",\"t\":")
        time(t)
        raw(",\"ev\":\"")
        raw(ev)
        byte(34)
    }

    @inline(__always) mutating func lineEnd() { raw("}\n") }

    /// One graph event as a log line with the log's own `seq`.
    mutating func event(_ change: GraphChange, seq: UInt64, t: Double) {
        holdingUnique { $0.eventLine(change, seq: seq, t: t) }
    }

    /// A `state` line for a node that settled at `ended`, earlier than the line's `t` (an
    /// outcome an attach session learned late): the field `ended` follows the state.
    mutating func settled(_ change: GraphChange, seq: UInt64, t: Double, ended: Double) {
        holdingUnique { $0.eventLine(change, seq: seq, t: t, ended: ended) }
    }

    /// A `state` line for a node that began executing at `started`, earlier than the line's
    /// `t` (before the log began, or in a stream merged onto a later clock): the field
    /// `started` follows the state.
    mutating func executing(_ id: NodeID, seq: UInt64, t: Double, started: Double) {
        lineStart(seq: seq, t: t, ev: "state")
        nextKey("id")
        int(id.rawValue)
        raw(",\"state\":\"executing\"")
        nextKey("started")
        time(started)
        lineEnd()
    }

    private mutating func eventLine(_ change: GraphChange, seq: UInt64, t: Double, ended: Double? = nil) {
        switch change {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            lineStart(seq: seq, t: t, ev: "add")
            nextKey("id")
            int(id.rawValue)
            nextKey("kind")
            string(kind)
            nextKey("name")
            string(name)
            nextKey("weight")
            double(weight)
            if let parent {
                nextKey("parent")
                int(parent.rawValue)
            }
            if let index {
                nextKey("index")
                int(index)
            }
        case .parentSet(let id, let parent, let index):
            lineStart(seq: seq, t: t, ev: "parent")
            nextKey("id")
            int(id.rawValue)
            nextKey("parent")
            int(parent.rawValue)
            nextKey("index")
            int(index)
        case .weightChanged(let id, let weight):
            lineStart(seq: seq, t: t, ev: "weight")
            nextKey("id")
            int(id.rawValue)
            nextKey("weight")
            double(weight)
        case .stateChanged(let id, let state, let failed, let message):
            lineStart(seq: seq, t: t, ev: "state")
            nextKey("id")
            int(id.rawValue)
            nextKey("state")
            stateName(state)
            if failed {
                raw(",\"failed\":true")
                if let message {
                    nextKey("message")
                    string(message)
                }
            }
            if let ended {
                nextKey("ended")
                time(ended)
            }
        case .progress(let id, let progress):
            lineStart(seq: seq, t: t, ev: "progress")
            nextKey("id")
            int(id.rawValue)
            nextKey("fraction")
            double(progress.fraction)
            if let info = progress.info {
                nextKey("info")
                string(info)
            }
        case .cancelRequested(let id, let source):
            lineStart(seq: seq, t: t, ev: "cancel")
            nextKey("id")
            int(id.rawValue)
            nextKey("source")
            string(source)
        case .output(let id, let stream, let text):
            lineStart(seq: seq, t: t, ev: "output")
            nextKey("id")
            int(id.rawValue)
            nextKey("stream")
            raw(stream == .stdout ? "\"stdout\"" : "\"stderr\"")
            nextKey("text")
            string(text)
        case .attributes(let id, let attributes):
            lineStart(seq: seq, t: t, ev: "attrs")
            nextKey("id")
            int(id.rawValue)
            nextKey("attrs")
            attributeObject(attributes)
        case .ref(let id, let of):
            lineStart(seq: seq, t: t, ev: "ref")
            nextKey("id")
            int(id.rawValue)
            nextKey("of")
            int(of.rawValue)
        case .attempt(let id, let of):
            lineStart(seq: seq, t: t, ev: "attempt")
            nextKey("id")
            int(id.rawValue)
            nextKey("of")
            int(of.rawValue)
        case .renamed(let id, let name):
            lineStart(seq: seq, t: t, ev: "name")
            nextKey("id")
            int(id.rawValue)
            nextKey("name")
            string(name)
        case .usage(let id, let usage):
            lineStart(seq: seq, t: t, ev: "usage")
            nextKey("id")
            int(id.rawValue)
            usageFields(usage)
        case .warn(let id, let rule, let text):
            lineStart(seq: seq, t: t, ev: "warn")
            nextKey("id")
            int(id.rawValue)
            nextKey("rule")
            string(rule)
            if let text {
                nextKey("text")
                string(text)
            } else {
                raw(",\"cleared\":true")
            }
        case .log(let id, let record):
            logLine(id, record, seq: seq, t: t)
        case .summary(let id, let root, let summary):
            lineStart(seq: seq, t: t, ev: "summary")
            if let id {
                nextKey("id")
                int(id.rawValue)
            } else if let root {
                nextKey("root")
                string(root)
            }
            nextKey("dropped")
            summaryObject(summary)
        case .dropped(let ids):
            lineStart(seq: seq, t: t, ev: "drop")
            nextKey("ids")
            byte(91)
            for (i, id) in ids.enumerated() {
                if i > 0 { byte(44) }
                int(id.rawValue)
            }
            byte(93)
        }
        lineEnd()
    }

    @inline(__always)
    mutating func stateName(_ state: TaskState) {
        switch state {
        case .notExecuted: raw("\"notExecuted\"")
        case .executing: raw("\"executing\"")
        case .completed: raw("\"completed\"")
        case .cancelled: raw("\"cancelled\"")
        }
    }

    /// A `key` line.
    mutating func key(_ key: String, id: NodeID?, seq: UInt64, t: Double) {
        lineStart(seq: seq, t: t, ev: "key")
        nextKey("key")
        string(key)
        if let id {
            nextKey("id")
            int(id.rawValue)
        }
        lineEnd()
    }

    /// One node object of a snapshot line. `index` is written for children of parents whose
    /// children are not in ascending id order (the reader then sorts by it).
    mutating func snapshotNode(_ n: LogModel.Node, index: Int?) {
        raw("{\"id\":")
        int(Int(n.id))
        nextKey("kind")
        string(n.kind)
        if n.parent >= 0 {
            nextKey("parent")
            int(Int(n.parent))
        }
        if let index {
            nextKey("index")
            int(index)
        }
        nextKey("name")
        string(n.name)
        // The common values in one piece each (a final snapshot of a large graph is mostly
        // settled nodes of weight 1): the bytes are the same as field by field.
        if n.weight == 1 {
            raw(",\"weight\":1")
        } else {
            nextKey("weight")
            double(n.weight)
        }
        switch n.state {
        case .completed where !n.failed && n.fraction == 1:
            raw(",\"state\":\"completed\",\"failed\":false,\"fraction\":1")
        case .notExecuted where !n.failed && n.fraction == 0:
            raw(",\"state\":\"notExecuted\",\"failed\":false,\"fraction\":0")
        default:
            nextKey("state")
            stateName(n.state)
            nextKey("failed")
            raw(n.failed ? "true" : "false")
            nextKey("fraction")
            double(n.fraction)
        }
        if let started = n.started {
            nextKey("started")
            time(started)
        }
        if let ended = n.ended {
            nextKey("ended")
            time(ended)
        }
        if let info = n.info {
            nextKey("info")
            string(info)
        }
        if let message = n.message {
            nextKey("message")
            string(message)
        }
        if n.refOf >= 0 {
            nextKey("of")
            int(Int(n.refOf))
        }
        if n.attemptOf >= 0 {
            nextKey("attemptOf")
            int(Int(n.attemptOf))
        }
        if !n.warnings.isEmpty {
            nextKey("warn")
            byte(123)
            for (i, rule) in n.warnings.keys.sorted().enumerated() {
                if i > 0 { byte(44) }
                string(rule)
                byte(58)
                string(n.warnings[rule]!)
            }
            byte(125)
        }
        if !n.attributes.isEmpty {
            nextKey("attrs")
            attributeObject(n.attributes)
        }
        if let usage = n.usage { usageFields(usage) }
        if let dropped = n.droppedChildren {
            nextKey("dropped")
            summaryObject(dropped)
        }
        byte(125)
    }

    /// A `ChildSummary`'s fields, without braces: `"succeeded":N,"failed":N,"cancelled":N`
    /// and, when known, `"p50"`, `"p95"`, `"max"` in seconds.
    mutating func summaryFields(_ s: ChildSummary) {
        raw("\"succeeded\":")
        int(s.succeeded)
        nextKey("failed")
        int(s.failed)
        nextKey("cancelled")
        int(s.cancelled)
        if let p50 = s.p50 {
            nextKey("p50")
            double(p50)
        }
        if let p95 = s.p95 {
            nextKey("p95")
            double(p95)
        }
        if let max = s.max {
            nextKey("max")
            double(max)
        }
    }

    /// A `ChildSummary` as one JSON object.
    mutating func summaryObject(_ s: ChildSummary) {
        byte(123)
        summaryFields(s)
        byte(125)
    }

    /// `,"cpu":S,"rss":B` (a `usage` line's, and a snapshot node's).
    mutating func usageFields(_ usage: NodeUsage) {
        nextKey("cpu")
        double(usage.cpu)
        nextKey("rss")
        int(usage.rss)
    }

    /// A `log` line: `{"ev":"log","id":N,"level":…,"message":…,"metadata":{…}}`, metadata
    /// keys sorted, `"dropped":N` after them when records were dropped before this one.
    mutating func logLine(_ id: NodeID, _ record: NodeLogRecord, seq: UInt64, t: Double) {
        lineStart(seq: seq, t: t, ev: "log")
        nextKey("id")
        int(id.rawValue)
        nextKey("level")
        string(record.level)
        nextKey("message")
        string(record.message)
        nextKey("metadata")
        byte(123)
        for (i, key) in record.metadata.keys.sorted().enumerated() {
            if i > 0 { byte(44) }
            string(key)
            byte(58)
            string(record.metadata[key] ?? "")
        }
        byte(125)
        if record.droppedBefore > 0 {
            nextKey("dropped")
            int(record.droppedBefore)
        }
    }

    /// A node's attributes as one JSON object, keys in their order (`{"http.method":"GET"}`).
    mutating func attributeObject(_ attributes: [NodeAttribute]) {
        byte(123)
        for (i, a) in attributes.enumerated() {
            if i > 0 { byte(44) }
            string(a.key)
            byte(58)
            string(a.value)
        }
        byte(125)
    }

    /// The `end` line.
    mutating func end(_ s: LogSummary, seq: UInt64, t: Double) {
        lineStart(seq: seq, t: t, ev: "end")
        nextKey("summary")
        raw("{\"succeeded\":")
        int(s.succeeded)
        nextKey("failed")
        int(s.failed)
        nextKey("cancelled")
        int(s.cancelled)
        nextKey("skipped")
        int(s.skipped)
        nextKey("notExecuted")
        int(s.notExecuted)
        nextKey("executing")
        int(s.executing)
        nextKey("duration")
        double(s.duration)
        nextKey("outcome")
        string(s.outcome)
        byte(125)
        lineEnd()
    }
}

extension LogModel {
    /// Largest snapshot line written, in bytes (docs/log-format.md: no line over 1 MiB).
    static let maxSnapshotLineBytes = 1 << 20

    /// Writes the whole state as one or more `snapshot` lines of at most
    /// `maxSnapshotLineBytes` each (a single node larger than that cannot exist: names and
    /// messages are cut to 4 KiB). Returns the next free seq.
    func writeSnapshot(
        into out: inout LogBuffer, seq firstSeq: UInt64, t: Double,
        maxLineBytes: Int = LogModel.maxSnapshotLineBytes
    ) -> UInt64 {
        // Straight from the model's storage: no copy of every node (and its strings) first.
        LogModel.writeSnapshot(
            count: liveCount, forEach: { forEachLiveByID($0) }, into: &out, seq: firstSeq, t: t,
            maxLineBytes: maxLineBytes, droppedRoots: droppedRoots)
    }

    /// `writeSnapshot` of the `count` live nodes `forEach` visits (ascending ids, twice).
    private static func writeSnapshot(
        count: Int, forEach: ((Node) -> Void) -> Void, into out: inout LogBuffer,
        seq firstSeq: UInt64, t: Double, maxLineBytes: Int, droppedRoots: [String: ChildSummary]
    ) -> UInt64 {
        // Children whose order is not ascending by id get an explicit index.
        var explicit = [Int: Int]()
        forEach { n in
            guard n.children.count > 1 else { return }
            var sorted = true
            for i in 1..<n.children.count where n.children[i - 1] > n.children[i] {
                sorted = false
                break
            }
            if !sorted { for (i, c) in n.children.enumerated() { explicit[Int(c)] = i } }
        }
        return writeSnapshot(
            count: count, explicit: explicit, forEach: forEach, into: &out, seq: firstSeq, t: t,
            maxLineBytes: maxLineBytes, droppedRoots: droppedRoots)
    }

    /// `writeSnapshot` of the `count` live nodes `forEach` visits (ascending ids, once), where
    /// `explicit` gives the index of each child whose parent's children are not in ascending
    /// id order.
    static func writeSnapshot(
        count: Int, explicit: [Int: Int], forEach: ((Node) -> Void) -> Void, into out: inout LogBuffer,
        seq firstSeq: UInt64, t: Double, maxLineBytes: Int = LogModel.maxSnapshotLineBytes,
        droppedRoots: [String: ChildSummary] = [:]
    ) -> UInt64 {
        // Encode nodes first, then cut into parts that fit.
        var encoded = LogBuffer(capacity: count * 96)
        var ends: [Int] = []
        ends.reserveCapacity(count)
        forEach { n in
            encoded.snapshotNode(n, index: explicit.isEmpty ? nil : explicit[Int(n.id)])
            ends.append(encoded.count)
        }
        let overhead = 96 // the line's own fields
        var parts: [Range<Int>] = [] // ranges of node indices
        var start = 0
        var startByte = 0
        for i in 0..<ends.count {
            let size = ends[i] - startByte + (i - start) // commas
            if size + overhead > maxLineBytes && i > start {
                parts.append(start..<i)
                start = i
                startByte = ends[i - 1]
            }
        }
        parts.append(start..<ends.count)
        var seq = firstSeq
        encoded.withBytes { bytes in
            for (p, range) in parts.enumerated() {
                out.lineStart(seq: seq, t: t, ev: "snapshot")
                out.nextKey("part")
                out.int(p + 1)
                out.nextKey("parts")
                out.int(parts.count)
                out.nextKey("nodes")
                out.byte(91)
                for i in range {
                    if i > range.lowerBound { out.byte(44) }
                    let from = i == 0 ? 0 : ends[i - 1]
                    out.appendBytes(UnsafeRawBufferPointer(rebasing: bytes[from..<ends[i]]))
                }
                out.byte(93)
                if p == 0, !droppedRoots.isEmpty {
                    // The roots retention dropped, by name (names sorted: the same state
                    // writes the same bytes).
                    out.nextKey("droppedRoots")
                    out.byte(123)
                    for (i, name) in droppedRoots.keys.sorted().enumerated() {
                        if i > 0 { out.byte(44) }
                        out.string(name)
                        out.byte(58)
                        out.summaryObject(droppedRoots[name]!)
                    }
                    out.byte(125)
                }
                out.lineEnd()
                seq += 1
            }
        }
        return seq
    }
}

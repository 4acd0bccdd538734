#if canImport(Glibc)
    import Glibc
#endif

/// The line-by-line state of `LogReader`: validates each line against the model built so
/// far and appends its event to the log.
struct LogParser {
    enum Kind {
        case add, parent, weight, state, progress, cancel, drop, output, ref, attrs, attempt, name, warn, key, snapshot,
            end, resync, usage, log, summary,
            error,
            unknown, missing
    }

    /// The fields of one line; only those of its kind are used.
    struct Fields {
        var seq: Int?
        var t: Double?
        var ev = Kind.missing
        var id: Int?
        var kind: String?
        var name: String?
        var weight: Double?
        var parent: Int?
        var index: Int?
        var state: TaskState?
        var failed = false
        var message: String?
        var fraction: Double?
        var info: String?
        var source: String?
        var stream: OutputStreamName?
        var text: String?
        var ids: [Int]?
        var key: String?
        var part: Int?
        var parts: Int?
        var nodes: [SnapshotNode]?
        var summary: ReplaySummary?
        var skipped: Int?
        var of: Int?
        var started: Double?
        var ended: Double?
        var attrs: [NodeAttribute]?
        var attemptOf: Int?
        var cpu: Double?
        var rss: Int?

        /// The `cpu` and `rss` fields as a usage (nil unless both are there).
        var usage: NodeUsage? {
            guard let cpu, let rss else { return nil }
            return NodeUsage(cpu: cpu, rss: rss)
        }
        /// A `warn` line's.
        var rule: String?
        var cleared = false
        /// A `usage` line about the serving program itself (`"program":true`, no `id`).
        var program = false
        /// A snapshot node's warnings.
        var warns: [String: String]?
        var level: String?
        var metadata: [String: String]?
        var dropped: Int?
        var root: String?
        /// A `summary` line's or a snapshot node's `dropped` object (a log line's is a count).
        var droppedSummary: ChildSummary?
        var droppedRoots: [String: ChildSummary]?
    }

    struct SnapshotNode {
        var node: LogModel.Node
        var parent: Int?
        var index: Int?
    }

    struct PendingSnapshot {
        var parts: Int
        var next: Int
        var t: Double
        var nodes: [SnapshotNode]
        /// The first part's `droppedRoots`.
        var droppedRoots: [String: ChildSummary] = [:]
    }

    static let maxText = 1 << 20
    static let maxSeq = 1 << 52

    var log: ReplayLog
    let skipBadLines: Bool
    /// The nodes so far: structure exact (validation needs ids and parents), states and
    /// progress only while `modelStale` is false (the fast path skips them).
    var model = LogModel()
    var modelStale = false
    var lineNo = 0
    var lastSeq = 0
    var lastT = 0.0
    var pending: PendingSnapshot?
    /// Accept gaps in `seq` (a live stream: the server's `resync` counts what it skipped).
    var allowSeqGaps = false
    /// What the serving program itself costs, from the last `usage` line with
    /// `"program":true` (attach streams), nil once taken.
    var programUsage: NodeUsage?
    /// The `skipped` count of the last `resync` line (attach streams), nil once taken.
    var resyncSkipped: Int?
    /// The message of the last server `error` line that carried a `seq` (attach), nil once taken.
    var serverError: String?

    /// Whether a stale model is folded again at the end (a second pass over every event);
    /// readers that need only the events skip it.
    let foldsFinalModel: Bool

    init(name: String, skipBadLines: Bool, foldsFinalModel: Bool = true) {
        log = ReplayLog(name: name)
        self.skipBadLines = skipBadLines
        self.foldsFinalModel = foldsFinalModel
    }

    mutating func run(_ buf: UnsafeBufferPointer<UInt8>) throws {
        guard let base = buf.baseAddress, buf.count > 0 else {
            throw LogLoadError(path: log.name, line: 1, message: "empty file: no header line")
        }
        log.events.reserveCapacity(buf.count / 64)
        var start = 0
        while start < buf.count {
            lineNo += 1
            guard let hit = memchr(base + start, 10, buf.count - start) else {
                if lineNo == 1 {
                    throw LogLoadError(path: log.name, line: 1, message: "truncated header line (no newline)")
                }
                log.truncatedAfterSeq = UInt64(lastSeq)
                break
            }
            let end = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
            var len = end - start
            if len > 0 && base[start + len - 1] == 13 { len -= 1 }
            let line = UnsafeBufferPointer(start: base + start, count: len)
            start = end + 1
            if lineNo == 1 {
                do { try header(line) } catch let e as LineError {
                    throw LogLoadError(path: log.name, line: 1, message: e.message)
                }
                continue
            }
            do {
                guard len <= LogReader.maxLineBytes else {
                    throw LineError("line is longer than the reader's cap of 4 MiB (\(len) bytes)")
                }
                if try !fastEventLine(line) { try eventLine(line) }
            } catch let e as LineError {
                guard skipBadLines else { throw LogLoadError(path: log.name, line: lineNo, message: e.message) }
                log.skippedLines += 1
            }
        }
        // Stale: rebuilt from the last snapshot and the events after it, as seeking does.
        if !modelStale {
            log.foldedFinalModel = model
        } else if foldsFinalModel {
            log.foldedFinalModel = log.model(afterEvents: log.events.count)
        }
        log.lastSeq = UInt64(lastSeq)
        log.duration = lastT
    }

    // MARK: header

    mutating func header(_ line: UnsafeBufferPointer<UInt8>) throws {
        guard line.count <= LogReader.maxLineBytes else { throw LineError("header line is too long") }
        var s = LineScanner(line)
        var format: String?
        var version: Double?
        var h = LogHeader()
        do {
            try s.object { s, key in
                if key.equals("format") {
                    format = try s.string()
                } else if key.equals("version") {
                    version = try s.number()
                } else if key.equals("created") {
                    h.created = try Self.text(&s)
                } else if key.equals("producer") {
                    h.producer = try Self.text(&s)
                } else if key.equals("scenario") {
                    h.scenario = try Self.text(&s)
                } else if key.equals("file") {
                    h.file = try Self.text(&s)
                } else if key.equals("pid") {
                    h.pid = try s.int("pid", in: 0...Int(Int32.max))
                } else if key.equals("name") {
                    h.name = try Self.text(&s)
                } else if key.equals("seed") {
                    let v = try s.number()
                    h.seed = v >= 0 && v < 1.8e19 && v == v.rounded() ? UInt64(v) : nil
                } else {
                    try s.skipValue()
                }
            }
            try s.finish()
        } catch let e as LineError {
            throw LineError("not a taskgraph log (line 1 is not a JSON header: \(e.message))")
        }
        guard format == "taskgraph-log" else {
            throw LineError("not a taskgraph log (the header's \"format\" is not \"taskgraph-log\")")
        }
        guard let version, version.isFinite, version >= 1 else {
            throw LineError("the header has no valid \"version\"")
        }
        // Compared as a Double: converting a huge version (1e300) to Int would trap.
        guard version == Double(LogReader.version) else {
            let shown = version == version.rounded() && version < 1e9 ? String(Int(version)) : String(version)
            throw LineError("unsupported log version \(shown) (this taskview reads version \(LogReader.version))")
        }
        h.version = version
        log.header = h
    }

    static func text(_ s: inout LineScanner) throws -> String? {
        if s.null() { return nil }
        let v = try s.string()
        guard v.utf8.count <= maxText else { throw LineError("text longer than 1 MiB") }
        return v
    }

    // MARK: events

    mutating func eventLine(_ line: UnsafeBufferPointer<UInt8>) throws {
        var s = LineScanner(line)
        var f = Fields()
        try s.object { s, key in try Self.field(&s, key, into: &f) }
        try s.finish()
        guard let seq = f.seq else { throw LineError("missing \"seq\"") }
        guard let t = f.t else { throw LineError("missing \"t\"") }
        guard f.ev != .missing else { throw LineError("missing \"ev\"") }
        if seq <= lastSeq {
            throw LineError("seq \(seq) does not follow \(lastSeq)")
        }
        if seq != lastSeq + 1 && !skipBadLines && !allowSeqGaps && lastSeq > 0 {
            throw LineError("seq \(seq) follows \(lastSeq): lines are missing")
        }
        guard t >= lastT else { throw LineError("time \(t) goes backwards (previous line: \(lastT))") }
        if let p = pending, f.ev != .snapshot {
            _ = p
            pending = nil
            throw LineError("snapshot ended after part \(p.next - 1) of \(p.parts)")
        }
        try apply(f, t: t)
        lastSeq = seq
        lastT = t
    }

    static func field(_ s: inout LineScanner, _ key: UnsafeBufferPointer<UInt8>, into f: inout Fields) throws {
        switch key.count {
        case 1 where key[0] == UInt8(ascii: "t"):
            let t = try s.number()
            guard t.isFinite, t >= 0, t <= 1e12 else { throw LineError("time \(t) is out of range") }
            f.t = t
        case 2 where key.equals("id"): f.id = try s.int("id", in: 0...LogModel.maxID)
        case 2 where key.equals("of"): f.of = try s.int("of", in: 0...LogModel.maxID)
        case 2 where key.equals("ev"):
            let v = try s.rawString()
            f.ev = kind(v)
        case 3 where key.equals("seq"): f.seq = try s.int("seq", in: 1...maxSeq)
        case 3 where key.equals("ids"):
            var ids: [Int] = []
            try s.array { s in
                guard ids.count <= LogModel.maxID else { throw LineError("too many ids") }
                ids.append(try s.int("id", in: 0...LogModel.maxID))
            }
            f.ids = ids
        case 3 where key.equals("key"): f.key = try text(&s)
        case 3 where key.equals("cpu"):
            let v = try s.number()
            guard v.isFinite, v >= 0, v <= 1e12 else { throw LineError("cpu \(v) is not finite within 0...10^12") }
            f.cpu = v
        case 3 where key.equals("rss"): f.rss = try s.int("rss", in: 0...1 << 60)
        case 4 where key.equals("kind"):
            let k = try s.string()
            guard !k.isEmpty, k.utf8.count <= 64 else { throw LineError("invalid node kind") }
            f.kind = k
        case 4 where key.equals("name"): f.name = try text(&s) ?? ""
        case 4 where key.equals("info"): f.info = try text(&s)
        case 4 where key.equals("text"): f.text = try text(&s) ?? ""
        case 4 where key.equals("part"): f.part = try s.int("part", in: 1...1 << 20)
        case 4 where key.equals("rule"):
            let r = try s.string()
            guard !r.isEmpty, r.utf8.count <= 64 else { throw LineError("invalid warning rule") }
            f.rule = r
        case 7 where key.equals("cleared"): f.cleared = try s.bool()
        case 7 where key.equals("program"): f.program = try s.bool()
        case 4 where key.equals("warn"):
            var list: [String: String] = [:]
            try s.object { s, k in
                guard list.count < 16 else { throw LineError("more than 16 warnings") }
                guard k.count <= 64 else { throw LineError("invalid warning rule") }
                list[String(decoding: k, as: UTF8.self)] = try text(&s) ?? ""
            }
            f.warns = list
        case 5 where key.equals("state"):
            let v = try s.rawString()
            if v.equals("notExecuted") {
                f.state = .notExecuted
            } else if v.equals("executing") {
                f.state = .executing
            } else if v.equals("completed") {
                f.state = .completed
            } else if v.equals("cancelled") {
                f.state = .cancelled
            } else {
                throw LineError("unknown state \"\(String(decoding: v.prefix(40), as: UTF8.self))\"")
            }
        case 5 where key.equals("index"): f.index = try s.int("index", in: 0...LogModel.maxID)
        case 5 where key.equals("attrs"):
            var list: [NodeAttribute] = []
            try s.object { s, k in
                guard list.count < NodeAttribute.maxCount else { throw LineError("more than 32 attributes") }
                let value = try s.string()
                let key = String(decoding: k, as: UTF8.self)
                guard key.utf8.count <= NodeAttribute.maxBytes, value.utf8.count <= NodeAttribute.maxBytes else {
                    throw LineError("an attribute longer than 256 bytes")
                }
                list.append(NodeAttribute(key, value))
            }
            f.attrs = list
        case 5 where key.equals("level"):
            let v = try s.string()
            guard v.utf8.count <= 64 else { throw LineError("a level longer than 64 bytes") }
            f.level = v
        case 8 where key.equals("metadata"): f.metadata = try metadata(&s)
        case 7 where key.equals("dropped"):
            // A count on a `log` line, an object (`ChildSummary`) on a `summary` line or node.
            s.skipWS()
            if s.peek == 123 {
                f.droppedSummary = try childSummary(&s)
            } else {
                f.dropped = try s.int("dropped", in: 0...maxSeq)
            }
        case 5 where key.equals("parts"): f.parts = try s.int("parts", in: 1...1 << 20)
        case 5 where key.equals("nodes"): f.nodes = try snapshotNodes(&s)
        case 6 where key.equals("weight"):
            let w = try s.number()
            guard w.isFinite, w >= 0 else { throw LineError("weight \(w) is not finite and >= 0") }
            f.weight = w
        case 6 where key.equals("parent"): f.parent = try s.int("parent", in: 0...LogModel.maxID)
        case 6 where key.equals("failed"): f.failed = try s.bool()
        case 6 where key.equals("source"): f.source = try text(&s) ?? ""
        case 6 where key.equals("stream"):
            let v = try s.rawString()
            if v.equals("stdout") {
                f.stream = .stdout
            } else if v.equals("stderr") {
                f.stream = .stderr
            } else {
                throw LineError("unknown stream \"\(String(decoding: v.prefix(40), as: UTF8.self))\"")
            }
        case 7 where key.equals("message"): f.message = try text(&s)
        case 9 where key.equals("attemptOf"): f.attemptOf = try s.int("attemptOf", in: 0...LogModel.maxID)
        case 7 where key.equals("summary"): f.summary = try summary(&s)
        case 4 where key.equals("root"): f.root = try text(&s) ?? ""
        case 12 where key.equals("droppedRoots"):
            var roots: [String: ChildSummary] = [:]
            try s.object { s, k in
                guard k.count <= 4096 else { throw LineError("a root name longer than 4 KiB") }
                roots[String(decoding: k, as: UTF8.self)] = try childSummary(&s)
            }
            f.droppedRoots = roots
        case 7 where key.equals("skipped"): f.skipped = try s.int("skipped", in: 0...maxSeq)
        case 7 where key.equals("started"):
            let v = try s.number()
            guard v.isFinite, abs(v) <= 1e12 else { throw LineError("started \(v) is not finite within ±10^12") }
            f.started = v
        case 5 where key.equals("ended"):
            let v = try s.number()
            guard v.isFinite, abs(v) <= 1e12 else { throw LineError("ended \(v) is not finite within ±10^12") }
            f.ended = v
        case 8 where key.equals("fraction"):
            let v = try s.number()
            guard v >= 0, v <= 1 else { throw LineError("fraction \(v) is outside 0...1") }
            f.fraction = v
        default: try s.skipValue()
        }
    }

    /// A `log` line's metadata: at most 32 entries, keys and values at most 4 KiB.
    static func metadata(_ s: inout LineScanner) throws -> [String: String] {
        var out: [String: String] = [:]
        try s.object { s, k in
            guard out.count < NodeLogRecord.maxMetadataCount else { throw LineError("more than 32 metadata entries") }
            let value = try s.string()
            guard k.count <= 4096, value.utf8.count <= 4096 else {
                throw LineError("a metadata entry longer than 4 KiB")
            }
            out[String(decoding: k, as: UTF8.self)] = value
        }
        return out
    }

    static func kind(_ v: UnsafeBufferPointer<UInt8>) -> Kind {
        switch v.count {
        case 3:
            return v.equals("add")
                ? .add
                : v.equals("key")
                    ? .key
                    : v.equals("end")
                        ? .end
                        : v.equals("ref") ? .ref : v.equals("log") ? .log : .unknown
        case 4: return v.equals("drop") ? .drop : v.equals("name") ? .name : v.equals("warn") ? .warn : .unknown
        case 7 where v.equals("attempt"): return .attempt
        case 7 where v.equals("summary"): return .summary
        case 5 where v.equals("attrs"): return .attrs
        case 5 where v.equals("usage"): return .usage
        case 5: return v.equals("state") ? .state : v.equals("error") ? .error : .unknown
        case 6:
            return v.equals("parent")
                ? .parent
                : v.equals("weight")
                    ? .weight
                    : v.equals("cancel")
                        ? .cancel
                        : v.equals("resync") ? .resync : v.equals("output") ? .output : .unknown
        case 8: return v.equals("progress") ? .progress : v.equals("snapshot") ? .snapshot : .unknown
        default: return .unknown
        }
    }

    static func snapshotNodes(_ s: inout LineScanner) throws -> [SnapshotNode] {
        var out: [SnapshotNode] = []
        try s.array { s in
            var f = Fields()
            try s.object { s, key in try field(&s, key, into: &f) }
            guard let id = f.id else { throw LineError("a snapshot node has no \"id\"") }
            var n = LogModel.Node(
                id: Int32(id), kind: f.kind ?? NodeKind.task, name: f.name ?? "",
                weight: f.weight ?? 1)
            n.state = f.state ?? .notExecuted
            n.failed = f.failed && n.state == .completed
            n.fraction = f.fraction ?? (n.state == .completed && !n.failed ? 1 : 0)
            n.info = f.info
            n.message = n.failed ? f.message : nil
            if let of = f.of { n.refOf = Int32(of) }
            if let of = f.attemptOf { n.attemptOf = Int32(of) }
            if n.state != .notExecuted { n.started = f.started }
            if n.state.isSettled { n.ended = f.ended }
            n.attributes = f.attrs ?? []
            n.usage = f.usage
            n.warnings = f.warns ?? [:]
            n.droppedChildren = f.droppedSummary
            out.append(SnapshotNode(node: n, parent: f.parent, index: f.index))
        }
        return out
    }

    /// A `ChildSummary` object (`dropped` of a `summary` line or a snapshot node).
    static func childSummary(_ s: inout LineScanner) throws -> ChildSummary {
        var r = ChildSummary()
        try s.object { s, key in
            func count() throws -> Int { try s.int("count", in: 0...Int(1) << 52) }
            func seconds() throws -> Double {
                let d = try s.number()
                guard d.isFinite, d >= 0, d <= 1e12 else {
                    throw LineError("duration \(d) is not finite within 0...10^12")
                }
                return d
            }
            if key.equals("succeeded") {
                r.succeeded = try count()
            } else if key.equals("failed") {
                r.failed = try count()
            } else if key.equals("cancelled") {
                r.cancelled = try count()
            } else if key.equals("p50") {
                r.p50 = try seconds()
            } else if key.equals("p95") {
                r.p95 = try seconds()
            } else if key.equals("max") {
                r.max = try seconds()
            } else {
                try s.skipValue()
            }
        }
        return r
    }

    static func summary(_ s: inout LineScanner) throws -> ReplaySummary {
        var r = ReplaySummary()
        try s.object { s, key in
            func count() throws -> Int { try s.int("count", in: 0...LogModel.maxID) }
            if key.equals("succeeded") {
                r.succeeded = try count()
            } else if key.equals("failed") {
                r.failed = try count()
            } else if key.equals("cancelled") {
                r.cancelled = try count()
            } else if key.equals("skipped") {
                r.skipped = try count()
            } else if key.equals("notExecuted") {
                r.notExecuted = try count()
            } else if key.equals("executing") {
                r.executing = try count()
            } else if key.equals("duration") {
                let d = try s.number()
                guard d.isFinite, d >= 0 else { throw LineError("bad duration") }
                r.duration = d
            } else if key.equals("outcome") {
                r.outcome = try s.string()
            } else {
                try s.skipValue()
            }
        }
        return r
    }
}

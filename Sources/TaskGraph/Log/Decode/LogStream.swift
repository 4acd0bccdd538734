#if canImport(Glibc)
    import Glibc
#endif

/// What one stretch of a live log stream (an attach connection, or a log being followed)
/// says, in order. Ids and times are the producer's own.
public enum StreamItem: Sendable {
    /// The header line (attach adds `pid` and `name`).
    case header(LogHeader)
    /// Graph events, in order.
    case events([GraphEvent])
    /// A complete snapshot: it replaces everything known about the producer's graph.
    /// Nodes in ascending id order; `roots` in creation order. When retention dropped roots,
    /// `events` with their `summary` changes (one a root name) follow it.
    case snapshot(nodes: [LogModel.Node], roots: [Int], time: Double)
    /// The server dropped `skipped` events for a slow viewer; a snapshot follows.
    case resync(skipped: Int)
    /// The producer ended cleanly (its `end` line).
    case end
    /// An error line from the server (`{"ev":"error","message":...}`): the connection stays.
    case error(String)
    /// What the serving program itself costs so far (CPU seconds, current RSS), about once a
    /// second while a viewer is attached (`{"ev":"usage","program":true,...}`).
    case programUsage(NodeUsage)
}

/// A stream that cannot be read on: the line and the problem.
public struct StreamError: Error, CustomStringConvertible, Sendable {
    /// The 1-based line of the stream that cannot be read.
    public let line: Int
    /// What is wrong with it.
    public let message: String
    /// `line N: MESSAGE`.
    public var description: String { "line \(line): \(message)" }
}

/// Reads a replay log as it arrives, through the log reader's own parser (same checks,
/// same limits: LogReader), complete lines only. Memory stays bounded: events handed out
/// are not kept. This is the public way to read a log that is still being written
/// (`LogReader` reads a whole file).
public struct LogStream {
    private var parser: LogParser
    private var pending: [UInt8] = []
    private var sawHeader = false
    private var ended = false

    /// `live`: an attach stream, whose `seq` may jump where the server resynced.
    public init(name: String, live: Bool = true) {
        parser = LogParser(name: name, skipBadLines: false)
        parser.allowSeqGaps = live
    }

    /// Whether the `end` line was read.
    public var sawEnd: Bool { ended }

    /// Bytes not yet ending in a newline.
    public var partialBytes: Int { pending.count }

    /// Feeds bytes; returns what their complete lines say.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws -> [StreamItem] {
        var out: [StreamItem] = []
        var chunk = bytes[...]
        while let nl = chunk.firstIndex(of: 10) {
            if pending.isEmpty {
                try line(UnsafeRawBufferPointer(rebasing: chunk[chunk.startIndex..<nl]), &out)
            } else {
                pending.append(contentsOf: chunk[chunk.startIndex..<nl])
                let whole = pending
                pending.removeAll(keepingCapacity: true)
                try whole.withUnsafeBytes { b throws in try line(b, &out) }
            }
            chunk = chunk[(nl + 1)...]
        }
        pending.append(contentsOf: chunk)
        if pending.count > LogReader.maxLineBytes {
            throw StreamError(
                line: parser.lineNo + 1,
                message: "line is longer than the reader's cap of 4 MiB")
        }
        flush(&out)
        return out
    }

    /// Convenience for tests and small inputs.
    public mutating func feed(_ bytes: [UInt8]) throws -> [StreamItem] {
        try bytes.withUnsafeBytes { b throws in try feed(b) }
    }

    private mutating func line(_ raw: UnsafeRawBufferPointer, _ out: inout [StreamItem]) throws {
        var len = raw.count
        if len > 0 && raw[len - 1] == 13 { len -= 1 }
        let buf = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: len)
        parser.lineNo += 1
        let number = parser.lineNo
        do {
            guard len <= LogReader.maxLineBytes else {
                throw LineError("line is longer than the reader's cap of 4 MiB (\(len) bytes)")
            }
            if !sawHeader {
                // A server that refuses the connection (another user, too many viewers) says
                // why in one error line instead of the header, then closes.
                if len > 0, buf.baseAddress != nil, let message = try Self.errorLine(buf) {
                    out.append(.error(message))
                    return
                }
                try parser.header(buf)
                sawHeader = true
                out.append(.header(parser.log.header))
                return
            }
            if len == 0 || buf.baseAddress == nil { throw LineError("empty line") }
            if let message = try Self.errorLine(buf) {
                flush(&out)
                out.append(.error(message))
                return
            }
            let snapshots = parser.log.checkpoints.count
            if try !parser.fastEventLine(buf) { try parser.eventLine(buf) }
            if let message = parser.serverError {
                parser.serverError = nil
                flush(&out)
                out.append(.error(message))
            }
            if let usage = parser.programUsage {
                parser.programUsage = nil
                flush(&out)
                out.append(.programUsage(usage))
            }
            if let skipped = parser.resyncSkipped {
                parser.resyncSkipped = nil
                parser.lastSeq = 0 // whether the server's seq goes on or starts over after it
                flush(&out)
                out.append(.resync(skipped: skipped))
            }
            if parser.log.checkpoints.count > snapshots, let cp = parser.log.checkpoints.last {
                flush(&out)
                // The parser has just built its model from this snapshot.
                out.append(.snapshot(nodes: parser.model.liveNodesByID(), roots: parser.model.rootIDs, time: cp.time))
                // What retention dropped of roots so far, as the `summary` events that keep it
                // current: a viewer that joins late or resyncs counts the whole run.
                let roots = parser.model.droppedRoots.sorted { $0.key < $1.key }
                if !roots.isEmpty {
                    out.append(
                        .events(
                            roots.map {
                                GraphEvent(
                                    sequence: UInt64(parser.lastSeq), time: cp.time,
                                    change: .summary(id: nil, root: $0.key, summary: $0.value))
                            }))
                }
                parser.log.checkpoints.removeAll()
            }
            if parser.log.end != nil && !ended {
                ended = true
                flush(&out)
                out.append(.end)
            }
        } catch let e as LineError {
            throw StreamError(line: number, message: e.message)
        } catch {
            throw StreamError(line: number, message: "\(error)")
        }
    }

    /// Hands out the events parsed so far and forgets them.
    private mutating func flush(_ out: inout [StreamItem]) {
        let events = parser.log.events
        guard !events.isEmpty else { return }
        out.append(.events(Array(events)))
        parser.log.events = ReplayEvents()
        parser.log.keys.removeAll()
    }

    /// The message of an error line (one without `seq` whose `ev` is `error`), else nil.
    static func errorLine(_ buf: UnsafeBufferPointer<UInt8>) throws -> String? {
        // Event lines start with "seq"; only other lines are looked at twice.
        if buf.count > 7 && buf[1] == UInt8(ascii: "\""), buf[2] == UInt8(ascii: "s") { return nil }
        var s = LineScanner(buf)
        var isError = false
        var message: String?
        do {
            try s.object { s, key in
                if key.equals("ev") {
                    isError = try s.rawString().equals("error")
                } else if key.equals("message") {
                    message = try LogParser.text(&s)
                } else {
                    try s.skipValue()
                }
            }
            try s.finish()
        } catch {
            return nil // the parser gives the proper error
        }
        return isError ? (message ?? "error") : nil
    }
}

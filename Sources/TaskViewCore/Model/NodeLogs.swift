import TaskGraph

/// The last `capacity` log records of one node (`GraphChange.log`), oldest first, each with
/// its place in the node's stream (`TreeModel.streamOrder`), so the detail pane shows them
/// beside the node's output in the order they came. Memory stays bounded however much a node
/// logs.
package struct NodeLogs: Sendable {
    /// Records kept per node.
    package static let capacity = 1_000

    package struct Entry: Sendable, Equatable {
        /// Where it came in the stream of outputs and records of the whole model.
        package var order: Int
        package var level: String
        /// The message and the metadata as one raw line (sanitized when drawn).
        package var text: String
        /// Records the program dropped just before this one (its budget ran out).
        package var droppedBefore: Int
    }

    private var storage: [Entry] = []
    private var head = 0
    /// Records seen in all (kept or not).
    package private(set) var total = 0
    /// Records the program dropped, as the records that followed them said.
    package private(set) var dropped = 0

    package init() {}

    package mutating func append(_ entry: Entry) {
        total += 1
        dropped += entry.droppedBefore
        if storage.count < NodeLogs.capacity {
            storage.append(entry)
        } else {
            storage[head] = entry
            head = (head + 1) % NodeLogs.capacity
        }
    }

    /// The kept records, oldest first.
    package var entries: [Entry] { Array(storage[head...] + storage[..<head]) }

    package var count: Int { storage.count }

    /// `warning disk almost full  disk=sda`: the record as one line of the detail pane.
    static func line(_ record: NodeLogRecord) -> String {
        var text = "[" + record.level + "] " + record.message
        for key in record.metadata.keys.sorted() { text += "  " + key + "=" + (record.metadata[key] ?? "") }
        return text
    }
}

/// The minimum level the detail pane shows records of (`L` cycles it); output lines always show.
package enum LogLevelFilter: Int, Sendable, CaseIterable {
    case all, notice, warning, error

    /// The next filter `L` chooses (after `error`: `all`).
    package var next: LogLevelFilter { LogLevelFilter(rawValue: rawValue + 1) ?? .all }

    /// The words the footer message uses: `records: warning and above`.
    package var label: String {
        switch self {
        case .all: "all records"
        case .notice: "records: notice and above"
        case .warning: "records: warning and above"
        case .error: "records: error and above"
        }
    }

    /// Whether a record of `level` shows.
    package func shows(_ level: String) -> Bool {
        switch self {
        case .all: true
        case .notice: NodeLogRecord.rank(level) >= NodeLogRecord.rank("notice")
        case .warning: NodeLogRecord.rank(level) >= NodeLogRecord.rank("warning")
        case .error: NodeLogRecord.rank(level) >= NodeLogRecord.rank("error")
        }
    }
}

/// Warning and error records (`error` and `critical`) in a subtree: what a row's `⚠ N ✗ N` says.
package struct LogCounts: Sendable, Equatable {
    package var warnings = 0
    package var errors = 0

    /// The counts one record of `level` adds (nil: none).
    static func of(_ level: String) -> LogCounts? {
        switch level {
        case "warning": LogCounts(warnings: 1)
        case "error", "critical": LogCounts(errors: 1)
        default: nil
        }
    }
}

extension TreeModel {
    /// Files a record under node `id`, counts it on the node and its ancestors.
    mutating func addLogRecord(_ id: Int, _ record: NodeLogRecord) {
        streamOrder += 1
        logs[id, default: NodeLogs()].append(
            .init(
                order: streamOrder, level: record.level, text: NodeLogs.line(record),
                droppedBefore: record.droppedBefore))
        droppedLogRecords += record.droppedBefore
        guard let add = LogCounts.of(record.level) else { return }
        var x = id
        var steps = 0
        while x >= 0 && steps <= nodes.count {
            logCounts[x, default: LogCounts()].warnings += add.warnings
            logCounts[x, default: LogCounts()].errors += add.errors
            x = nodes.read(x) { $0.exists ? Int($0.parent) : -1 }
            steps += 1
        }
    }

    /// What the detail pane, its search and the pager show of node `id`: its kept output
    /// lines and its kept records at `filter` and above, in the order they came, a record
    /// after dropped ones preceded by a line saying how many (`[1,204 records dropped]`).
    /// Nil when the node has neither.
    package func detailStream(_ id: Int, filter: LogLevelFilter) -> OutputRing? {
        guard let records = logs[id] else { return outputs[id] }
        var lines: [OutputRing.Line] = []
        for e in records.entries where filter.shows(e.level) || e.droppedBefore > 0 {
            if e.droppedBefore > 0 {
                lines.append(
                    .init(
                        stream: .stdout, text: "[" + e.droppedBefore.formatted3 + " records dropped]", order: e.order,
                        level: "dropped"))
            }
            if filter.shows(e.level) {
                lines.append(.init(stream: .stdout, text: e.text, order: e.order, level: e.level))
            }
        }
        let output = outputs[id]
        if let output { lines += output.lines }
        lines.sort { $0.order < $1.order }
        let before = (output.map { $0.total - $0.count } ?? 0) + (records.total - records.count)
        return OutputRing(lines: lines, total: before + lines.count)
    }
}

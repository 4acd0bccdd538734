import TaskGraph

/// Log records in the detail pane and the rows (`GraphChange.log`): the stream's header, a
/// record's level in colour, a row's `⚠ N ✗ N`.
extension Renderer {
    /// `Output (last 12 of 40 lines):`, and for a node with records what they are:
    /// `Output and log (last 12 of 40 lines; 30 records, warning and above; 1,204 records dropped):`.
    func streamHeader(_ tree: TreeModel, _ id: Int, _ ring: OutputRing, _ filter: LogLevelFilter) -> String {
        guard let records = tree.logs[id] else { return "Output (last \(ring.count) of \(ring.total) lines):" }
        var header =
            "Output (last \(ring.count) of \(ring.total) lines; \(records.total.formatted3) record"
            + (records.total == 1 ? "" : "s")
        if filter != .all { header += ", " + filter.label.replacingRecordsPrefix }
        if records.dropped > 0 { header += "; " + records.dropped.formatted3 + " records dropped" }
        return header + "):"
    }

    /// Colours the `[level]` a drawn record line starts with (` ` + `  [warning] …`).
    func colourLevel(_ line: String, y: Int, into grid: inout CellGrid) {
        guard line.hasPrefix("  ["), let close = line.firstIndex(of: "]") else { return }
        let level = String(line[line.index(line.startIndex, offsetBy: 3)..<close])
        guard let role = Renderer.levelRole(level) else { return }
        grid.restyle(y: y, from: 3, count: level.count + 2) { style in
            style.role = role
            style.bold = level == "error" || level == "critical"
        }
    }

    /// The colour of a level (nil: not a level).
    static func levelRole(_ level: String) -> StyleRole? {
        switch level {
        case "trace", "debug": .dim
        case "info": .normal
        case "notice": .accent
        case "warning": .cancelled
        case "error", "critical": .failed
        default: nil
        }
    }

    /// `⚠ 2 ✗ 1 `: the warning and error records of a row's subtree (nothing when none), at
    /// `x`; returns the column after it.
    func drawLogCounts(_ counts: LogCounts?, x: Int, y: Int, limit: Int, into grid: inout CellGrid) -> Int {
        guard let counts, counts.warnings + counts.errors > 0 else { return x }
        var col = x
        let end = x + limit
        for (glyph, n, role) in [
            (glyphs.isASCII ? "!" : "⚠", counts.warnings, StyleRole.cancelled),
            (String(glyphs.failed), counts.errors, StyleRole.failed),
        ] where n > 0 {
            let text = glyph + " " + String(n)
            guard col + text.count + 1 <= end else { return col }
            col = grid.write(glyph, x: col, y: y, style: CellStyle(role, bold: true))
            col = grid.write(" " + String(n) + " ", x: col, y: y)
        }
        return col
    }
}

extension String {
    /// `records: warning and above` → `warning and above`.
    fileprivate var replacingRecordsPrefix: String {
        hasPrefix("records: ") ? String(dropFirst(9)) : self
    }
}

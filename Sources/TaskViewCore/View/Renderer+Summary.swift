import TaskGraph

extension Renderer {
    /// `✓ 19,980 ✗ 20 · p50 3ms p95 12ms`: what retention dropped under a row (or of a root
    /// name), counts by outcome that are not zero, then the durations' quantiles when known.
    func summaryText(_ s: ChildSummary) -> String {
        var parts: [String] = []
        for (state, n) in [(DisplayState.succeeded, s.succeeded), (.failed, s.failed), (.cancelled, s.cancelled)]
        where n > 0 {
            parts.append(String(glyphs.glyph(state)) + " " + Format.grouped(n))
        }
        if parts.isEmpty { parts.append(String(glyphs.glyph(.succeeded)) + " 0") }
        var text = parts.joined(separator: " ")
        if let p50 = s.p50 {
            text += (glyphs.isASCII ? " - " : " · ") + "p50 " + Format.latency(p50)
            if let p95 = s.p95, s.count > 1 { text += " p95 " + Format.latency(p95) }
        }
        return text
    }

    /// The detail pane's lines for what retention dropped under node `n`: the counts, then
    /// each duration figure known.
    func droppedLines(_ tree: TreeModel, node n: Int) -> [String] {
        guard !tree.droppedSummaries.isEmpty, let s = tree.droppedSummaries[n] else { return [] }
        var lines = ["Dropped children (retention): " + Format.grouped(s.count)]
        lines.append(
            "  succeeded " + Format.grouped(s.succeeded) + ", failed " + Format.grouped(s.failed) + ", cancelled "
                + Format.grouped(s.cancelled))
        if let p50 = s.p50, let p95 = s.p95, let max = s.max {
            lines.append(
                "  durations: p50 " + Format.latency(p50) + ", p95 " + Format.latency(p95) + ", max "
                    + Format.latency(max))
        }
        return lines
    }

    /// The rows of the roots retention dropped, under the tree: `/fast  ✓ 19,980 · p50 3ms`,
    /// one a root name, the most numerous first; the last row counts the names left out.
    /// They follow the last tree row drawn (`drawn` rows from the top).
    func drawDroppedRoots(_ tree: TreeModel, _ layout: Layout, from drawn: Int, into grid: inout CellGrid) {
        let lines = droppedRootLines(tree, rows: layout.droppedRootRows)
        for (k, line) in lines.enumerated() {
            let y = layout.treeTop + min(drawn, layout.treeRows) + k
            let x = grid.writeFitted(
                "  " + line.name, x: 0, y: y, style: CellStyle(.dim), limit: layout.width / 2,
                ellipsis: glyphs.ellipsis)
            grid.writeFitted(
                "  " + line.text, x: x, y: y, style: CellStyle(.dim), limit: layout.width - x,
                ellipsis: glyphs.ellipsis)
        }
    }

    /// At most `rows` lines (name, figures) for the dropped roots: by dropped count, then name;
    /// when names are left out, the last line says how many and what they add up to.
    package func droppedRootLines(_ tree: TreeModel, rows: Int) -> [(name: String, text: String)] {
        guard rows > 0, !tree.droppedRoots.isEmpty else { return [] }
        let sorted = tree.droppedRoots.sorted { a, b in
            a.value.count != b.value.count ? a.value.count > b.value.count : a.key < b.key
        }
        if sorted.count <= rows { return sorted.map { ($0.key, summaryText($0.value)) } }
        var lines = sorted.prefix(rows - 1).map { (name: $0.key, text: summaryText($0.value)) }
        let rest = sorted.dropFirst(rows - 1)
        var sum = ChildSummary(succeeded: 0, failed: 0, cancelled: 0)
        for (_, s) in rest {
            sum.succeeded += s.succeeded
            sum.failed += s.failed
            sum.cancelled += s.cancelled
        }
        lines.append(("+\(rest.count) more root names", summaryText(sum)))
        return lines
    }

    /// A row's info text with the summary of its dropped children in front, if it has one.
    func withDroppedSummary(_ tree: TreeModel, _ id: Int, _ text: String) -> String {
        guard !tree.droppedSummaries.isEmpty, let s = tree.droppedSummaries[id] else { return text }
        return summaryText(s) + (text.isEmpty ? "" : "  " + text)
    }
}

extension Format {
    /// `19,980`: an integer with its thousands grouped.
    package static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }

    /// A request's duration as a row shows it: `850µs`, `3ms`, `1.2s`, then `duration`.
    package static func latency(_ t: Double) -> String {
        let t = t.isFinite ? max(0, t) : 0
        if t < 0.001 { return "\(Int((t * 1e6).rounded()))µs" }
        if t < 1 { return "\(Int((t * 1e3).rounded()))ms" }
        if t < 60 { return fixed(t, decimals: 1) + "s" }
        return duration(t)
    }
}

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

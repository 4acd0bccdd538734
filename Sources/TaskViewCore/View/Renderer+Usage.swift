extension Renderer {
    /// The `CPU` and `RSS` cells of a row at `x` (each after a space, right-aligned): CPU
    /// as a share of a core while the row runs and a rate is known, else seconds; RSS the
    /// peak. Blank for a row with nothing reported below it. Returns the column after them.
    func drawUsage(
        _ total: UsageTotal?, running: Bool, _ layout: Layout, x: Int, y: Int, into grid: inout CellGrid
    ) -> Int {
        var col = x
        for (width, text) in [
            (layout.cpuWidth, total.map { cpuText($0, running: running) }),
            (layout.rssWidth, total.map { Format.bytes($0.rss) }),
        ] {
            col += 1
            if let text {
                grid.write(
                    String(repeating: " ", count: max(0, width - text.count)) + text, x: col, y: y,
                    style: CellStyle(.dim), limit: width)
            }
            col += width
        }
        return col
    }

    func cpuText(_ total: UsageTotal, running: Bool) -> String {
        if running, let rate = total.rate { return Format.cpuPercent(rate) }
        return Format.cpuSeconds(total.cpu)
    }
}

extension Renderer {
    /// The detail pane's line of what the node costs: its own usage (`CPU: 1.02s (98% now)
    /// Peak RSS: 212MiB`), or a group's (`CPU below: 3.10s   Largest peak RSS below: 212MiB`);
    /// nil when nothing below it reported any.
    func usageLine(_ tree: TreeModel, node n: Int, content c: Int) -> String? {
        let own = tree.usages[c] ?? tree.usages[n]
        let running = tree.nodes[n].state == .executing
        if let own {
            var line = "CPU: " + Format.cpuSeconds(own.usage.cpu)
            if running, let rate = own.rate { line += " (" + Format.cpuPercent(rate) + " now)" }
            return line + "   Peak RSS: " + Format.bytes(own.usage.rss)
        }
        guard let total = tree.usageTotals()[n] else { return nil }
        var line = "CPU below: " + Format.cpuSeconds(total.cpu)
        if running, let rate = total.rate { line += " (" + Format.cpuPercent(rate) + " now)" }
        return line + "   Largest peak RSS below: " + Format.bytes(total.rss)
    }
}

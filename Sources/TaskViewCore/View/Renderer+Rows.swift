import TaskGraph

extension Renderer {
    /// The tree rows, from `top` down, one `next` step per row; returns how many it drew.
    @discardableResult
    func drawRows(
        _ model: DashboardModel, _ d: DisplayTree, _ layout: Layout, top: RowIndex,
        into grid: inout CellGrid
    ) -> Int {
        guard layout.treeRows > 0 else { return 0 }
        var node: RowIndex? = top != .none ? top : nil
        if node == nil, d.first() != nil { node = d.first() }
        if node == nil && layout.treeRows > 0 {
            let text = model.view.filter.isEmpty ? "no tasks" : "no task matches the filter"
            grid.write("  " + text, x: 0, y: layout.treeTop, style: CellStyle(.dim))
            return 1
        }
        let now = model.pausedClock ?? model.clockNow
        let usage = layout.cpuWidth > 0 ? d.tree.usageTotals() : nil
        var drawn = 0
        for r in 0..<layout.treeRows {
            guard let n = node else { break }
            drawn += 1
            drawRow(
                n, d, layout, y: layout.treeTop + r, now: now,
                selected: n == model.view.selection, history: model.history,
                baseline: layout.deltaWidth > 0 ? model.baseline : nil, usage: usage, into: &grid)
            node = d.next(n)
        }
        return drawn
    }

    func drawRow(
        _ n: RowIndex, _ d: DisplayTree, _ layout: Layout, y: Int, now: Double, selected: Bool,
        history: RunHistory? = nil, baseline: Baseline? = nil, usage: [Int: UsageTotal]? = nil,
        into grid: inout CellGrid
    ) {
        let tree = d.tree
        let shown = tree.shownNode(n).rawValue // a restarted row shows its newest attempt
        var node = tree.nodes[shown]
        // A group above restarted rows: as judged from its children's newest attempts.
        if !tree.rejudged.isEmpty, let judged = tree.rejudged[n.rawValue] {
            node.show(as: judged)
            node.fraction = tree.rejudgedFractions[n.rawValue] ?? node.fraction
        }
        // A step without progress of its own, with a history: elapsed over expected.
        if let history, shown == n.rawValue, let (fraction, left) = history.timeProgress(n.rawValue, in: tree, now: now)
        {
            node.fraction = fraction
            node.info = "~" + Format.duration(left) + " left" + (node.info.map { "  " + $0 } ?? "")
        }
        let state = node.display
        let role = Renderer.role(state)
        let nameCols = layout.nameColumns
        var x = drawPrefix(n, d, maxColumns: max(0, nameCols - 8), y: y, into: &grid)
        // A collapsed row says what it hides: a failure below turns its glyph to the failed
        // colour, and its info column shows the counts per state of its subtree.
        let collapsed = d.hasChildren(n) && !d.isExpanded(n)
        let hidden = collapsed ? tree.countsBelow(d.content(n).rawValue) : nil
        let failedBelow = (hidden?.count(.failed) ?? 0) > 0
        x = grid.write(
            String(glyphs.glyph(state)), x: x, y: y,
            style: CellStyle(failedBelow ? .failed : role, bold: state == .failed || failedBelow))
        x = grid.write(" ", x: x, y: y)
        if collapsed {
            x = grid.write(String(glyphs.collapsed) + " ", x: x, y: y, style: CellStyle(.accent), limit: nameCols - x)
        }
        var name = rowName(tree, d.content(n).rawValue)
        if node.weight != 1 { name += "  " + Format.weightLabel(node.weight) }
        if let later = tree.attempts[n.rawValue] { name += "  attempt \(later.count + 1)" }
        if let flaky = history?.flaky.verdict(row: n.rawValue, in: tree) { name += "  " + flaky.label }
        let nameStyle = CellStyle(
            state == .notExecuted || state == .skipped ? .dim : .normal,
            underline: state == .cancelled && glyphs.isASCII)
        grid.writeFitted(name, x: x, y: y, style: nameStyle, limit: nameCols - x, ellipsis: glyphs.ellipsis)
        var col = nameCols
        if layout.barWidth > 0 {
            col += 1
            if state != .skipped {
                drawBar(fractionShown(node), x: col, y: y, width: layout.barWidth, role: role, into: &grid)
            }
            col += layout.barWidth
        }
        if layout.percentWidth > 0 {
            col += 1
            if state != .skipped { grid.write(Format.percent(fractionShown(node)), x: col, y: y) }
            col += layout.percentWidth
        }
        if layout.timeWidth > 0 {
            col += 1
            if !node.startedAt.isNaN {
                let end = node.endedAt.isNaN ? now : node.endedAt
                let t = Format.duration(end - node.startedAt)
                grid.write(
                    String(repeating: " ", count: max(0, layout.timeWidth - t.count)) + t,
                    x: col, y: y, style: CellStyle(.dim), limit: layout.timeWidth)
            }
            col += layout.timeWidth
        }
        if layout.deltaWidth > 0 {
            col += 1
            if let baseline {
                drawDelta(baseline, n.rawValue, tree, now: now, x: col, y: y, width: layout.deltaWidth, into: &grid)
            }
            col += layout.deltaWidth
        }
        if layout.cpuWidth > 0 {
            col = drawUsage(usage?[shown], running: state == .executing, layout, x: col, y: y, into: &grid)
        }
        if layout.infoWidth > 0, let hidden {
            let after = drawCounts(hidden, x: col + 1, y: y, limit: grid.width - col - 1, into: &grid)
            _ = drawLogCounts(
                tree.logCounts[d.content(n).rawValue], x: after + 1, y: y, limit: grid.width - after - 1, into: &grid)
        } else if layout.infoWidth > 0 {
            col += 1
            if !tree.logCounts.isEmpty {
                col = drawLogCounts(
                    tree.logCounts[d.content(n).rawValue], x: col, y: y, limit: grid.width - col, into: &grid)
            }
            var (text, style) = infoText(node, state)
            if let why = rowWhy(tree, shown: shown, node: node, state: state, now: now, history: history) { text = why }
            // `✗ allowed`: a step marked `allowFailure` failed (or was skipped), counted apart.
            if state == .failed || state == .skipped,
                tree.allowsFailure(shown) || tree.allowsFailure(d.content(n).rawValue)
            {
                text = "allowed: " + text
            }
            // A warning leads the info: `⚠ slow: 3.4× its usual 12s`.
            if let w = warnings(tree, shown: shown, content: d.content(n).rawValue).first {
                text = String(glyphs.warning) + " " + w.text + (text.isEmpty ? "" : "  " + text)
                style = CellStyle(.cancelled, bold: true)
            }
            text = withDroppedSummary(tree, shown, text)
            if !text.isEmpty {
                grid.writeFitted(
                    clean(text), x: col, y: y, style: style, limit: grid.width - col,
                    ellipsis: glyphs.ellipsis)
            }
        }
        if selected {
            // Reverse video, but for the bar: reversed, its filled part would show as the
            // empty one (a 75 % bar reading as 25 %).
            let bar = layout.barWidth > 0 ? (nameCols + 1)..<(nameCols + 1 + layout.barWidth) : grid.width..<grid.width
            grid.restyle(y: y, from: 0, count: bar.lowerBound) { $0.reverse = true }
            grid.restyle(y: y, from: bar.upperBound, count: grid.width - bar.upperBound) { $0.reverse = true }
        }
    }

    /// The warnings a row shows: its task's (an adapter's content) and the shown node's.
    func warnings(_ tree: TreeModel, shown: Int, content: Int) -> [(rule: String, text: String)] {
        guard tree.warningCount > 0 else { return [] }
        return tree.warningList(content) + (shown == content ? [] : tree.warningList(shown))
    }

    /// The states a collapsed row counts, in the header's order.
    static let countOrder: [DisplayState] = [.executing, .succeeded, .failed, .cancelled, .notExecuted, .skipped]

    /// `● 3 ✓ 120 ✗ 1`: the non-zero counts of `counts`, each after its state's glyph;
    /// a pair that does not fit in `limit` columns is left out whole, never cut.
    @discardableResult
    func drawCounts(_ counts: SubtreeCounts, x: Int, y: Int, limit: Int, into grid: inout CellGrid) -> Int {
        var col = x
        let end = x + limit
        for s in Renderer.countOrder where counts.count(s) > 0 {
            let number = String(counts.count(s))
            let start = col == x ? col : col + 1
            guard start + 2 + number.count <= end else { return col }
            col = grid.write(
                String(glyphs.glyph(s)), x: start, y: y, style: CellStyle(Renderer.role(s), bold: s == .failed))
            col = grid.write(" " + number, x: col, y: y)
        }
        return col
    }

    func fractionShown(_ node: TreeModel.Node) -> Double {
        node.state == .completed && !node.failed ? 1 : node.fraction
    }

    func infoText(_ node: TreeModel.Node, _ state: DisplayState) -> (String, CellStyle) {
        switch state {
        case .failed: return (node.message ?? "failed", CellStyle(.failed))
        case .cancelled: return (node.cancelSource.map { "cancelled (\($0))" } ?? "cancelled", CellStyle(.cancelled))
        case .skipped: return (node.skippedByNeeds ? node.info ?? "skipped" : "skipped", CellStyle(.dim))
        default: return (node.info ?? "", CellStyle(.dim))
        }
    }

    /// Tree lines for row `n`: one 3-column level per row ancestor below the root, drawn
    /// only as deep as fits (deep chains show their last levels).
    func drawPrefix(_ n: RowIndex, _ d: DisplayTree, maxColumns: Int, y: Int, into grid: inout CellGrid) -> Int {
        let maxLevels = maxColumns / 3
        guard maxLevels > 0 else { return 0 }
        // levels[k]: the node whose sibling situation decides column k, deepest first.
        var levels: [RowIndex] = []
        var x = n
        while levels.count < maxLevels {
            let p = d.parent(x)
            if p == .none { break }
            levels.append(x)
            x = p
        }
        if levels.isEmpty { return 0 }
        var col = 0
        for k in stride(from: levels.count - 1, through: 0, by: -1) {
            let hasNext = d.nextSibling(levels[k]) != nil
            let piece: String
            if k == 0 {
                piece = (hasNext ? glyphs.tee : glyphs.last) + " "
            } else {
                piece = hasNext ? glyphs.pipe + " " : "   "
            }
            col = grid.write(piece, x: col, y: y, style: CellStyle(.dim))
        }
        return col
    }
}

extension Renderer {
    /// A row's name, sanitized: a `ref` node reads as a link to the shared node it stands
    /// for ("-> fetch user #12"; Enter jumps there).
    func rowName(_ tree: TreeModel, _ i: Int) -> String {
        let node = tree.nodes[i]
        guard node.kind == NodeKind.ref, node.refOf >= 0 else { return clean(node.name) }
        let of = Int(node.refOf)
        let name = tree.contains(of) ? tree.nodes[of].name : node.name
        return "-> " + clean(name) + " #" + String(of)
    }
}

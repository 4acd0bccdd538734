import TaskGraph

extension Renderer {
    /// The lines of the detail pane for `row`: name, kind, id, parent, weight, progress,
    /// state history with timestamps, error message, cancel source; for a command, its command
    /// line, working directory, pid while running or exit status, and its last output lines.
    /// `now` and `history` give the `Why:` line its times (default: the tree's last event).
    package func detailLines(
        _ tree: TreeModel, _ d: DisplayTree, row: RowIndex, now: Double? = nil, history: RunHistory? = nil,
        logFilter: LogLevelFilter = .all
    ) -> [String] {
        guard tree.contains(row.node) else { return [] }
        let n = tree.shownNode(row).rawValue // a restarted row shows its newest attempt
        let node = tree.nodes[n]
        let c = d.content(RowIndex(n)).rawValue
        var lines: [String] = []
        lines.append("Name: " + clean(tree.nodes[c].name))
        var kind = "Kind: " + clean(node.kind)
        if c != n { kind += " (adapter of #\(c) " + clean(tree.nodes[c].kind) + ")" }
        kind += "   Id: #\(n)"
        let p = Int(tree[row.node].parent)
        if p >= 0 && tree.contains(p) {
            kind += "   Parent: #\(p) " + clean(tree.nodes[d.content(p)].name)
        } else {
            kind += "   Parent: none"
        }
        lines.append(kind)
        var weight = Format.weight(node.weight)
        if node.weight >= 10_000 { weight += " (" + Format.weightLabel(node.weight) + ")" }
        var progress =
            "Weight: " + weight + "   Progress: "
            + Format.percent(fractionShown(node)).trimmingLeadingSpaces
        if let info = node.info { progress += " " + clean(info) }
        lines.append(progress)
        lines.append("State: " + node.display.word)
        // A long-lived node's dropped children are its main figures: before its history.
        lines += droppedLines(tree, node: c)
        lines.append("  " + Format.seconds3(node.addedAt) + "s  added (not executed)")
        if !node.startedAt.isNaN {
            lines.append("  " + Format.seconds3(node.startedAt) + "s  executing")
        }
        if !node.endedAt.isNaN {
            var s = node.display.word
            if node.display == .cancelled, let src = node.cancelSource { s += " (" + clean(src) + ")" }
            lines.append("  " + Format.seconds3(node.endedAt) + "s  " + s)
        } else if node.display == .skipped {
            lines.append("  never executed: skipped")
        }
        lines += whyLines(tree, node: n, now: now ?? tree.time, history: history)
        if node.failed, let m = node.message { lines.append("Error: " + clean(m)) }
        if node.kind == NodeKind.scope || node.kind == NodeKind.service, node.display == .cancelled,
            let src = node.cancelSource
        {
            lines.append(
                src == CancelSource.task
                    ? "Swift: cancelled by its own program (its task was cancelled)"
                    : src == CancelSource.parent
                        ? "Swift: cancelled with its parent; its Swift work was cancelled"
                        : "Swift: cancelled from the graph (" + clean(src) + "); its Swift work was cancelled")
        }
        for w in warnings(tree, shown: n, content: c) {
            lines.append(String(glyphs.warning) + " " + clean(w.text) + " (" + clean(w.rule) + ")")
        }
        if let attributes = tree.attributes[c] {
            lines.append("Attributes:")
            for a in attributes { lines.append("  " + clean(a.key) + " = " + clean(a.value)) }
        }
        lines += needsLines(tree, node: row.rawValue)
        if let later = tree.attempts[row.rawValue] {
            let all = [row.rawValue] + later
            let list = all.enumerated().map { k, a -> String in
                let x = tree.nodes[d.content(a)] // the task itself: not the wait for its needs
                var s = "\(k + 1) " + tree.nodes[a].display.word
                if !x.startedAt.isNaN, !x.endedAt.isNaN { s += " " + Format.duration(x.endedAt - x.startedAt) }
                return s
            }
            lines.append("Attempts: " + list.joined(separator: ", "))
        }
        if let cmd = tree.commands[c] {
            lines.append("Command: " + clean(cmd.commandLine))
            var location = "Directory: " + (cmd.workingDirectory.map(clean) ?? "(current)")
            if let exit = cmd.exit {
                location += "   Exit: " + clean(exit)
            } else if let pid = cmd.pid {
                location += "   Pid: \(pid)"
            }
            lines.append(location)
        }
        if let usage = usageLine(tree, node: n, content: c) { lines.append(usage) }
        if let ring = tree.detailStream(c, filter: logFilter) {
            lines.append(streamHeader(tree, c, ring, logFilter))
            for l in ring.lines { lines.append((l.stream == .stderr ? "! " : "  ") + clean(l.text)) }
        }
        return lines
    }

    func drawDetail(_ model: DashboardModel, _ d: DisplayTree, _ layout: Layout, into grid: inout CellGrid) {
        let y0 = layout.treeTop + layout.treeRows
        let rule = String(repeating: glyphs.isASCII ? "-" : "─", count: grid.width)
        grid.write(rule, x: 0, y: y0, style: CellStyle(.dim))
        let tree = model.shown
        let ring = tree.detailStream(
            d.content(tree.shownNode(model.view.selection).row).rawValue, filter: model.view.logFilter)
        let query = model.view.search
        var title = " detail (Esc closes) "
        var matches: [Int] = []
        if let ring, !query.isEmpty {
            matches = OutputSearch.matches(ring, query)
            let status = OutputSearch.status(query: query, matches: matches, current: model.view.searchLine)
            title = " detail: " + clean(status) + (matches.isEmpty ? "" : " (n/N)") + " (Esc clears) "
        }
        grid.write(title, x: 2, y: y0, style: CellStyle(.accent))
        var lines = detailLines(
            tree, d, row: model.view.selection, now: model.pausedClock ?? model.clockNow, history: model.history,
            logFilter: model.view.logFilter)
        if let baseline = model.baseline, let line = baseline.detailLine(model.view.selection.rawValue, in: tree) {
            lines.insert(clean(line), at: min(lines.count, 4)) // after the progress line
        }
        if let flaky = model.history?.flaky.detailLines(row: model.view.selection.rawValue, in: tree) {
            // Before the output, which fills what is left.
            let at = lines.firstIndex { $0.hasPrefix("Output (last ") } ?? lines.count
            lines.insert(contentsOf: flaky.map(clean), at: at)
        }
        let rows = layout.detailRows - 1
        // A command's output follows its newest lines (or stays where `[`/`]` or a search
        // scrolled it): keep the facts, then a window of the output.
        var window: (row: Int, first: Int)?
        if let ring, let head = lines.firstIndex(where: { $0.hasPrefix("Output (last ") }), head < rows {
            let avail = rows - head - 1
            let oldest = ring.total - ring.count
            let wanted = model.view.detailOutputEnd ?? ring.total
            let end = min(ring.total, max(wanted, oldest + min(avail, ring.count)))
            let start = max(oldest, end - avail)
            var header = lines[head]
            if end < ring.total {
                header = "Output (lines \(start + 1)-\(end) of \(ring.total), ] for newer):"
            }
            let body = lines[(head + 1)...]
            let first = body.startIndex + (start - oldest)
            lines = Array(lines[..<head]) + [header] + Array(body[first..<(first + end - start)])
            window = (head + 1, start)
        }
        for (i, line) in lines.prefix(rows).enumerated() {
            grid.writeFitted(" " + line, x: 0, y: y0 + 1 + i, limit: grid.width, ellipsis: glyphs.ellipsis)
            if window != nil, i > (window?.row ?? 0) - 1 { colourLevel(line, y: y0 + 1 + i, into: &grid) }
        }
        if let window, !matches.isEmpty {
            highlight(
                lines, from: window.row, firstLine: window.first, rows: rows, query: query,
                current: model.view.searchLine, y0: y0 + 1, into: &grid)
        }
    }

    /// Marks the search's matches in the drawn output lines (reverse video), and the current
    /// match's line with `>` in the first column and bold matches.
    func highlight(
        _ lines: [String], from row: Int, firstLine: Int, rows: Int, query: String, current: Int?, y0: Int,
        into grid: inout CellGrid
    ) {
        guard row < min(rows, lines.count) else { return }
        for i in row..<min(rows, lines.count) {
            // Drawn as " " + marker ("! " or "  ") + clean text.
            let text = String(lines[i].dropFirst(2))
            let found = OutputSearch.occurrences(in: text, of: query)
            guard !found.isEmpty else { continue }
            let isCurrent = current == firstLine + (i - row)
            if isCurrent { grid.set(0, y0 + i, Cell(">", CellStyle(.accent, bold: true))) }
            for f in found {
                let x = 3 + Sanitizer.columns(String(text.prefix(f.start)))
                let w = Sanitizer.columns(String(text.dropFirst(f.start).prefix(f.length)))
                grid.restyle(y: y0 + i, from: x, count: w) { style in
                    style.reverse = true
                    if isCurrent { style.bold = true }
                }
            }
        }
    }

    func drawHelp(_ model: DashboardModel, _ layout: Layout, into grid: inout CellGrid) {
        let rows = layout.height - layout.treeTop - layout.footerRows
        guard rows > 0 else { return }
        grid.write(
            "Keys (any key closes this help)", x: 1, y: layout.treeTop, style: CellStyle(.accent, bold: true),
            limit: grid.width - 1)
        let keys = KeyTable.helpLines(replay: model.isReplay, ascii: glyphs.isASCII).map { "  " + clean($0) }
        let room = rows - 1
        guard room > 0 else { return }
        // Two columns when one is too short and the screen is wide enough for both.
        let columns = keys.count > room && grid.width >= 100 ? 2 : 1
        let columnWidth = columns == 2 ? grid.width / 2 : grid.width - 1
        for (i, line) in keys.prefix(room * columns).enumerated() {
            grid.writeFitted(
                line, x: 1 + (i / room) * columnWidth, y: layout.treeTop + 1 + i % room,
                limit: columnWidth - 1, ellipsis: glyphs.ellipsis)
        }
    }

    /// The footer while a prompt waits for text (filter, seek, find) or a digit (`z`).
    func promptLine(_ view: ViewState) -> String? {
        switch view.mode {
        case .filterInput:
            let scope = view.filterWide ? "  (names, info, errors; Tab: names only)" : "  (Tab: also info and errors)"
            return "/" + clean(view.filter) + "_" + scope
        case .seekInput: return "seek to (1:30, 90s, 45%): " + clean(view.prompt) + "_"
        case .findInput: return "find: " + clean(view.prompt) + "_"
        case .foldPrefix: return "fold to depth: 1-9"
        default: return nil
        }
    }

    func drawFooter(_ model: DashboardModel, _ layout: Layout, _ preview: CancelPreview?, into grid: inout CellGrid) {
        guard layout.footerRows > 0 else { return }
        let y = layout.height - 1
        let style = CellStyle(.accent, bold: true)
        if let preview {
            if layout.footerRows > 1, let note = preview.upwardNote {
                grid.writeFitted(
                    clean(note), x: 0, y: y - 1, style: CellStyle(.cancelled),
                    limit: grid.width, ellipsis: glyphs.ellipsis)
            }
            grid.writeFitted(
                clean(preview.prompt), x: 0, y: y, style: style, limit: grid.width, ellipsis: glyphs.ellipsis)
            return
        }
        if case .confirmRestart(let row, let k) = model.view.mode, model.tree.contains(row.rawValue) {
            let name = model.tree.nodes[model.displayTree().content(row.rawValue)].name
            let more = k == 0 ? "" : " (and \(k) node\(k == 1 ? "" : "s") that need\(k == 1 ? "s" : "") it)"
            // `a`: rebuild what it needs first ("fix the code, re-run the test").
            let n = model.tree.restartNeeds(row.rawValue).count
            let needs = n == 0 ? "" : ", a: also the \(n) step\(n == 1 ? "" : "s") it needs"
            grid.writeFitted(
                clean("Restart \(name)\(more)? [y/N\(needs)]"), x: 0, y: y, style: style, limit: grid.width,
                ellipsis: glyphs.ellipsis)
            return
        }
        if let prompt = promptLine(model.view) {
            grid.writeFitted(prompt, x: 0, y: y, style: style, limit: grid.width, ellipsis: glyphs.ellipsis)
            return
        }
        if model.view.mode == .searchInput {
            grid.writeFitted(
                "search output: " + clean(model.view.search) + "_", x: 0, y: y, style: style,
                limit: grid.width, ellipsis: glyphs.ellipsis)
            return
        }
        if let message = model.view.message {
            grid.writeFitted(clean(message), x: 0, y: y, style: style, limit: grid.width, ellipsis: glyphs.ellipsis)
            return
        }
        var text = KeyTable.footer(replay: model.isReplay, ascii: glyphs.isASCII, context: model.keyContext)
        if !model.view.filter.isEmpty { text = "filter: " + clean(model.view.filter) + " (Esc clears)  " + text }
        grid.writeFitted(clean(text), x: 0, y: y, style: CellStyle(.dim), limit: grid.width, ellipsis: glyphs.ellipsis)
    }
}

extension Renderer {
    /// `Needs: core (succeeded), docs (executing)` and `Needed by: test (not executed)` for a
    /// scenario node with `needs` or one that others need (by id where it has one).
    func needsLines(_ tree: TreeModel, node n: Int) -> [String] {
        let map = tree.needsMap
        guard !map.needs.isEmpty else { return [] }
        func list(_ ids: [Int]) -> String {
            ids.map { i in
                guard tree.contains(i) else { return map.ids[i] ?? "#\(i)" }
                let state = tree.nodes[tree.shownNode(RowIndex(i))].display.word
                return clean(map.ids[i] ?? tree.nodes[i].name) + " (" + state + ")"
            }.joined(separator: ", ")
        }
        var out: [String] = []
        if let needs = map.needs[n] { out.append("Needs: " + list(needs)) }
        let dependents = map.dependents(of: n)
        if !dependents.isEmpty { out.append("Needed by: " + list(dependents)) }
        return out
    }
}

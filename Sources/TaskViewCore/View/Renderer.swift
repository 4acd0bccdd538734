/// The pure view: (model, screen size) -> grid of cells. Only the visible rows are
/// visited (starting at the top row's node and stepping `next`), so the cost of a frame
/// does not depend on the size of the graph.
public struct Renderer {
    package let glyphs: Glyphs

    /// A renderer drawing ASCII glyphs only when `ascii`, else Unicode.
    public init(ascii: Bool) {
        glyphs = ascii ? .ascii : .unicode
    }

    /// A frame and the top row it settled on (store it back as `view.top`).
    public struct Frame: Sendable {
        /// The screen, cell by cell.
        public var grid: CellGrid
        /// The tree row drawn first.
        public var top: RowIndex
        /// Rows the tree area had (what PgUp/PgDn move by).
        package var treeRows: Int = 0
        /// The screen row of the first tree row (mouse clicks are placed on tree rows by it).
        package var treeTop: Int = 1
    }

    /// Draws the model as it is (nothing to prepare: `displayTree()` is always current;
    /// `refreshDerived()` beforehand only lets later frames reuse the filter).
    public func render(_ model: DashboardModel, width: Int, height: Int) -> Frame {
        var grid = CellGrid(width: width, height: height)
        guard width > 0, height > 0 else { return Frame(grid: grid, top: model.view.top) }
        let d = model.displayTree()
        let preview = confirmPreview(model, d)
        let layout = Layout(
            width: width, height: height, detailOpen: model.view.detailOpen,
            tallDetail: detailShowsCommand(model, d),
            footerRows: preview?.upwardNote != nil ? 2 : 1, timeline: model.isReplay,
            delta: model.view.showDelta && model.baseline != nil, usage: model.view.showUsage,
            droppedRootNames: model.tree.droppedRoots.count)
        drawHeader(model, into: &grid)
        if layout.timelineRows > 0 { drawTimeline(model, y: 1, into: &grid) }
        var top = model.view.top
        if model.view.mode == .help {
            drawHelp(model, layout, into: &grid)
        } else {
            top = model.topRow(rows: layout.treeRows, in: d) ?? RowIndex.none
            let drawn = drawRows(model, d, layout, top: top, into: &grid)
            if layout.droppedRootRows > 0 { drawDroppedRoots(model.tree, layout, from: drawn, into: &grid) }
            if layout.detailRows > 0 { drawDetail(model, d, layout, into: &grid) }
        }
        drawFooter(model, layout, preview, into: &grid)
        return Frame(grid: grid, top: top, treeRows: layout.treeRows, treeTop: layout.treeTop)
    }

    /// Whether the open detail pane shows a command (facts or output lines).
    func detailShowsCommand(_ model: DashboardModel, _ d: DisplayTree) -> Bool {
        let sel = model.view.selection
        guard model.view.detailOpen, model.shown.contains(sel.node) else { return false }
        let c = d.content(model.shown.shownNode(sel).row).rawValue
        return model.shown.outputs[c] != nil || model.shown.commands[c] != nil || model.shown.logs[c] != nil
    }

    func confirmPreview(_ model: DashboardModel, _ d: DisplayTree) -> CancelPreview? {
        guard case .confirmCancel(let row) = model.view.mode, model.tree.contains(row.rawValue) else { return nil }
        return CancelPreview(
            tree: model.tree, display: DisplayTree(tree: model.tree, view: model.view, mask: nil),
            node: row.rawValue)
    }

    /// The style role of a display state.
    package static func role(_ s: DisplayState) -> StyleRole {
        switch s {
        case .notExecuted: .dim
        case .executing: .executing
        case .succeeded: .succeeded
        case .failed: .failed
        case .cancelled: .cancelled
        case .skipped: .skipped
        }
    }

    /// Draws a bar of `width` cells for `fraction`, with eighth-cell precision.
    func drawBar(_ fraction: Double, x: Int, y: Int, width: Int, role: StyleRole, into grid: inout CellGrid) {
        guard width > 0 else { return }
        let eighths = Int((min(max(fraction, 0), 1) * Double(width * 8)).rounded(.down))
        let full = eighths / 8
        let rest = eighths % 8
        let fill = CellStyle(role)
        let track = CellStyle(.dim)
        for i in 0..<width {
            if i < full {
                grid.set(x + i, y, Cell(glyphs.barFull, fill))
            } else if i == full && rest > 0 {
                grid.set(x + i, y, Cell(glyphs.barEighths[rest], fill))
            } else {
                grid.set(x + i, y, Cell(glyphs.barTrack, track))
            }
        }
    }

    /// Text as drawn: sanitized, and ASCII-only in ASCII mode.
    func clean(_ text: String) -> String {
        Sanitizer.clean(text, ascii: glyphs.isASCII)
    }
}

extension Renderer {
    /// Row `row`'s cell of the Δ column (`Baseline.cell`), right-aligned in `width` columns.
    func drawDelta(
        _ baseline: Baseline, _ row: Int, _ tree: TreeModel, now: Double, x: Int, y: Int, width: Int,
        into grid: inout CellGrid
    ) {
        guard let (text, role) = baseline.cell(row, in: tree, now: now, ascii: glyphs.isASCII) else { return }
        grid.write(
            String(repeating: " ", count: max(0, width - text.count)) + text, x: x, y: y,
            style: CellStyle(role), limit: width)
    }
}

extension Renderer {
    /// The replay's timeline strip: the recording's duration across the screen, played
    /// part `━`, the rest `─`, its markers (`✗` failure, `⊘` cancel, a root's outcome)
    /// where they happen, and the position as `┃` (reversed when it sits on a marker).
    func drawTimeline(_ model: DashboardModel, y: Int, into grid: inout CellGrid) {
        let w = grid.width
        guard w > 0 else { return }
        let replay = model.replay ?? ReplayState()
        let duration = replay.duration
        func column(_ t: Double) -> Int {
            guard duration > 0, t.isFinite else { return 0 }
            return min(w - 1, max(0, Int((t / duration * Double(w)).rounded(.down))))
        }
        let at = column(replay.position)
        let played: Unicode.Scalar = glyphs.isASCII ? "=" : "━"
        let rest: Unicode.Scalar = glyphs.isASCII ? "-" : "─"
        for c in 0..<w {
            grid.set(c, y, c < at ? Cell(played, CellStyle(.accent)) : Cell(rest, CellStyle(.dim)))
        }
        for mark in replay.marks {
            let c = column(mark.time)
            let existing = grid[c, y].scalar
            // A failure outranks a cancel, which outranks a success, in a shared column.
            if existing == glyphs.failed || (existing == glyphs.cancelled && mark.state == .succeeded) { continue }
            grid.set(c, y, Cell(glyphs.glyph(mark.state), CellStyle(Renderer.role(mark.state), bold: true)))
        }
        let here = grid[at, y]
        if here.scalar == played || here.scalar == rest {
            grid.set(at, y, Cell(glyphs.isASCII ? "|" : "┃", CellStyle(.accent, bold: true)))
        } else {
            grid.restyle(y: y, from: at, count: 1) { $0.reverse = true }
        }
    }
}

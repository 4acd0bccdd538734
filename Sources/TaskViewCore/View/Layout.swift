/// Where things go on a screen of a given size: header row, tree rows, detail pane,
/// footer rows, and the widths of a tree row's columns. Narrow screens drop columns
/// (info, bar, time, percent) before they cut names.
package struct Layout: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// Rows of the replay's timeline strip, under the header (0 or 1).
    package let timelineRows: Int
    /// First tree row and number of tree rows.
    package let treeTop: Int
    package let treeRows: Int
    /// Rows for roots retention dropped, one a root name, drawn right below the tree rows
    /// (0 when nothing was dropped; at most 5 and a third of the tree's area).
    package let droppedRootRows: Int
    /// Detail pane rows (0: closed), drawn below the tree rows.
    package let detailRows: Int
    /// Footer rows at the bottom (1, or 2 for a cancel prompt with an upward note).
    package let footerRows: Int
    package let barWidth: Int
    package let percentWidth: Int
    package let timeWidth: Int
    /// The `u` columns, `CPU` and `RSS` (0: hidden).
    package let cpuWidth: Int
    package let rssWidth: Int
    package let infoWidth: Int
    /// The Δ column (`d`; 0: hidden or too narrow).
    package let deltaWidth: Int

    /// `tallDetail`: the pane shows a command (its facts and output need more room), so it
    /// takes up to two thirds of the area instead of at most 10 rows.
    /// `timeline`: a replay draws its timeline strip under the header (from 8 rows up).
    /// `delta`: the Δ column is on (from 50 columns up). `usage`: the `CPU` and `RSS` columns
    /// are on (`u`; from 40 columns up). `droppedRootNames`: how many root names retention
    /// dropped roots of (each gets a row while the tree keeps 6 rows or more).
    package init(
        width: Int, height: Int, detailOpen: Bool, tallDetail: Bool = false, footerRows: Int = 1,
        timeline: Bool = false, delta: Bool = false, usage: Bool = false, droppedRootNames: Int = 0
    ) {
        self.width = max(0, width)
        self.height = max(0, height)
        let footer = height >= 4 ? min(footerRows, max(1, height - 3)) : (height >= 2 ? 1 : 0)
        self.footerRows = footer
        timelineRows = timeline && height >= 8 ? 1 : 0
        treeTop = (height >= 2 ? 1 : 0) + timelineRows
        let area = max(0, height - treeTop - footer)
        let short = min(10, area / 2)
        let detail = detailOpen && area >= 4 ? (tallDetail ? max(short, area * 2 / 3) : short) : 0
        detailRows = detail
        let rest = area - detail
        droppedRootRows = rest >= 6 ? min(max(0, droppedRootNames), 5, rest / 3) : 0
        treeRows = rest - droppedRootRows
        barWidth = width >= 100 ? 20 : width >= 70 ? 12 : width >= 50 ? 8 : 0
        percentWidth = width >= 30 ? 4 : 0
        timeWidth = width >= 40 ? 6 : 0
        infoWidth = width >= 90 ? min(30, width / 4) : 0
        deltaWidth = delta && width >= 50 ? 10 : 0
        cpuWidth = usage && width >= 40 ? 6 : 0
        rssWidth = usage && width >= 40 ? 7 : 0
    }

    /// Columns left for tree lines, glyph and name.
    package var nameColumns: Int {
        var w = width
        for c in [barWidth, percentWidth, timeWidth, deltaWidth, cpuWidth, rssWidth, infoWidth] where c > 0 {
            w -= c + 1
        }
        return max(0, w)
    }
}

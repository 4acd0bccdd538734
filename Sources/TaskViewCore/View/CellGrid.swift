/// What a cell's colour means; the terminal layer maps roles to colours (or, with
/// NO_COLOR, to attributes only).
package enum StyleRole: UInt8, Sendable, CaseIterable {
    case normal, dim, executing, succeeded, failed, cancelled, skipped, header, bar, accent
}

/// A cell's look: a role plus attributes.
package struct CellStyle: Hashable, Sendable {
    package var role: StyleRole
    package var bold: Bool
    package var reverse: Bool
    package var underline: Bool

    package init(
        _ role: StyleRole = .normal, bold: Bool = false, reverse: Bool = false,
        underline: Bool = false
    ) {
        self.role = role
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    package static let normal = CellStyle()
}

/// One screen cell. A wide character occupies its cell and the next, which holds
/// `Cell.continuation`.
public struct Cell: Hashable, Sendable {
    package var scalar: Unicode.Scalar
    package var style: CellStyle

    package init(_ scalar: Unicode.Scalar, _ style: CellStyle = .normal) {
        self.scalar = scalar
        self.style = style
    }

    package static let blank = Cell(" ")
    /// The right half of a wide character.
    package static let continuationScalar: Unicode.Scalar = "\u{0}"
}

/// A frame: `height` rows of `width` cells, what the pure renderer produces and the
/// terminal layer copies (only the cells that changed).
public struct CellGrid: Sendable, Equatable {
    /// Columns.
    public let width: Int
    package let height: Int
    /// The cells, row by row (`y * width + x`).
    public private(set) var cells: [Cell]

    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = [Cell](repeating: .blank, count: self.width * self.height)
    }

    package subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Sets one cell (ignored outside the grid).
    package mutating func set(_ x: Int, _ y: Int, _ cell: Cell) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        cells[y * width + x] = cell
    }

    /// Applies `style` to cells `x..<x+count` of row `y`.
    package mutating func restyle(y: Int, from x: Int, count: Int, _ style: (inout CellStyle) -> Void) {
        guard y >= 0, y < height else { return }
        let start = max(0, x)
        let end = min(width, x + count)
        guard start < end else { return }
        for i in (y * width + start)..<(y * width + end) { style(&cells[i].style) }
    }

    /// Writes clean text from column `x` on row `y`, at most `limit` columns; returns the
    /// column after the last one written. Wide characters that do not fit are not split.
    @discardableResult
    package mutating func write(
        _ text: String, x: Int, y: Int, style: CellStyle = .normal,
        limit: Int = .max
    ) -> Int {
        guard y >= 0, y < height else { return x }
        let end = min(width, limit == .max ? width : x + max(0, limit))
        var col = x
        for s in text.unicodeScalars {
            let w = Sanitizer.width(s)
            if col + w > end { break }
            if col >= 0 {
                cells[y * width + col] = Cell(s, style)
                if w == 2 { cells[y * width + col + 1] = Cell(Cell.continuationScalar, style) }
            }
            col += w
        }
        return col
    }

    /// Writes text cut to `limit` columns, ending with `ellipsis` when cut.
    @discardableResult
    package mutating func writeFitted(
        _ text: String, x: Int, y: Int, style: CellStyle = .normal,
        limit: Int, ellipsis: Unicode.Scalar
    ) -> Int {
        guard limit > 0 else { return x }
        let cols = Sanitizer.columns(text)
        if cols <= limit { return write(text, x: x, y: y, style: style, limit: limit) }
        let col = write(text, x: x, y: y, style: style, limit: limit - 1)
        set(col, y, Cell(ellipsis, style))
        return col + 1
    }

    /// Row `y` as text (continuation cells skipped), trailing spaces kept.
    package func rowText(_ y: Int) -> String {
        var out = String.UnicodeScalarView()
        for x in 0..<width {
            let s = cells[y * width + x].scalar
            if s != Cell.continuationScalar { out.append(s) }
        }
        return String(out)
    }

    /// Every row as text with trailing spaces removed: handy for exact-row tests.
    package var lines: [String] {
        (0..<height).map { y in
            var s = rowText(y)
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
    }
}

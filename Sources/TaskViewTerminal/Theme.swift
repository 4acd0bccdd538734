import CNcurses
import TaskViewCore
import TaskViewIO

/// The dashboard's colours. By default the 16 ANSI colours on the terminal's own
/// background, so the terminal's theme decides how they look; `dark` and `light` pick
/// 256-colour shades that read well on such a background (with fewer colours, the
/// terminal's own colours that do); `mono` uses attributes only, like `NO_COLOR`.
package enum Theme: String, Sendable, CaseIterable {
    case ansi, dark, light, mono

    /// `--theme` values and `TASKVIEW_THEME`: `dark`, `light`, `mono` (and `ansi`, the
    /// default). nil: not a theme.
    package init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// Foregrounds of colour pairs 1...6 (red, green, yellow, magenta, cyan, blue roles:
    /// failed, succeeded, executing, cancelled, accent, bar) for a terminal with `colors`
    /// colours; -1 is the terminal's own foreground.
    func foregrounds(colors: Int32) -> [Int16] {
        let ansi: [Int16] = [
            Int16(COLOR_RED), Int16(COLOR_GREEN), Int16(COLOR_YELLOW), Int16(COLOR_MAGENTA), Int16(COLOR_CYAN),
            Int16(COLOR_BLUE),
        ]
        switch self {
        case .ansi, .mono:
            return ansi
        case .dark:
            if colors >= 256 { return [203, 114, 221, 176, 80, 75] }
            if colors >= 16 { return ansi.map { $0 + 8 } }
            // No bright colours: blue is too dark on black.
            return [
                Int16(COLOR_RED), Int16(COLOR_GREEN), Int16(COLOR_YELLOW), Int16(COLOR_MAGENTA), Int16(COLOR_CYAN),
                Int16(COLOR_CYAN),
            ]
        case .light:
            if colors >= 256 { return [160, 28, 130, 127, 24, 25] }
            // The plain yellow, green and cyan are too light on white: executing is blue,
            // succeeded and the accent take the terminal's own (dark) foreground.
            return [Int16(COLOR_RED), -1, Int16(COLOR_BLUE), Int16(COLOR_MAGENTA), -1, Int16(COLOR_BLUE)]
        }
    }

    /// The colour pair (0: none) and the attributes a style role gets: with colours, the
    /// role's pair; without (`mono`, NO_COLOR, a terminal without colours), attributes that
    /// keep the states apart (with the glyphs).
    static func look(_ role: StyleRole, colors: Bool) -> (pair: Int16, bold: Bool, dim: Bool, underline: Bool) {
        switch role {
        case .normal, .header: (0, false, false, false)
        case .dim, .skipped: (0, false, true, false)
        case .executing: colors ? (3, false, false, false) : (0, true, false, false)
        case .succeeded: (colors ? 2 : 0, false, false, false)
        case .failed: colors ? (1, false, false, false) : (0, true, false, false)
        case .cancelled: colors ? (4, false, false, false) : (0, false, false, true)
        case .bar: (colors ? 6 : 0, false, false, false)
        case .accent: (colors ? 5 : 0, false, false, false)
        }
    }

    /// How `style` looks under this theme on a terminal with `colors` colours (0: colours
    /// off, as with NO_COLOR; `mono` never uses any): what the tests check for contrast.
    package func drawn(_ style: CellStyle, colors: Int32) -> DrawnStyle {
        let useColors = colors > 0 && self != .mono
        let look = Self.look(style.role, colors: useColors)
        var fg = ThemeColor.terminalForeground
        if look.pair > 0 {
            let c = foregrounds(colors: colors)[Int(look.pair) - 1]
            if c >= 0 { fg = .palette(c) }
        }
        var bg = ThemeColor.terminalBackground
        if style.reverse { swap(&fg, &bg) }
        return DrawnStyle(
            foreground: fg, background: bg, bold: look.bold || style.bold, dim: look.dim,
            underline: look.underline || style.underline)
    }
}

/// A colour as the terminal draws it: its own foreground or background, or a palette entry.
package enum ThemeColor: Hashable, Sendable {
    /// The terminal's own text colour.
    case terminalForeground
    /// The terminal's own background.
    case terminalBackground
    /// An entry of the terminal's palette (0-15 the ANSI colours, 16-255 xterm's cube and greys).
    case palette(Int16)
}

/// A cell's look on the terminal: colours (after reverse video) and attributes.
package struct DrawnStyle: Hashable, Sendable {
    /// The colour the text is drawn in.
    package var foreground: ThemeColor
    /// The colour behind it.
    package var background: ThemeColor
    /// Bold.
    package var bold: Bool
    /// Dim (half-bright).
    package var dim: Bool
    /// Underlined.
    package var underline: Bool
}

import CNcurses

/// The dashboard's colours. By default the 16 ANSI colours on the terminal's own
/// background, so the terminal's theme decides how they look; `dark` and `light` pick
/// 256-colour shades that read well on such a background (bright ANSI colours, or the plain
/// ones, where the terminal has fewer); `mono` uses attributes only, like `NO_COLOR`.
public enum Theme: String, Sendable, CaseIterable {
    case ansi, dark, light, mono

    /// `--theme` values and `TASKVIEW_THEME`: `dark`, `light`, `mono` (and `ansi`, the
    /// default). nil: not a theme.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// Foregrounds of colour pairs 1...6 (red, green, yellow, magenta, cyan, blue roles) for a
    /// terminal with `colors` colours.
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
            return colors >= 16 ? ansi.map { $0 + 8 } : ansi
        case .light:
            if colors >= 256 { return [160, 28, 130, 127, 30, 25] }
            return ansi
        }
    }
}

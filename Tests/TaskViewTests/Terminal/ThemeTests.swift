import Testing

@testable import TaskViewCore
@testable import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// Every theme keeps every style readable: no foreground drawn in its own background, the
/// `dark` and `light` shades readable on such a background (WCAG contrast, xterm's
/// palette), and the selected row unlike a normal one (`mono` and NO_COLOR included).
@Suite struct ThemeTests {
    /// Every style the renderer can ask for: each role, with or without bold, reverse and
    /// underline.
    static let allStyles: [CellStyle] = StyleRole.allCases.flatMap { role in
        (0..<8).map { bits in CellStyle(role, bold: bits & 1 != 0, reverse: bits & 2 != 0, underline: bits & 4 != 0) }
    }

    /// The terminals a theme is drawn on: colours off (NO_COLOR), 8, 16 and 256 colours.
    static let colorCounts: [Int32] = [0, 8, 16, 256]

    /// The background each theme is for, as the terminal's own foreground and background
    /// (`ansi` and `mono` take the terminal's colours: both kinds are checked).
    static func terminals(for theme: Theme) -> [(fg: RGB, bg: RGB)] {
        let dark = (fg: RGB(229, 229, 229), bg: RGB(0, 0, 0))
        let light = (fg: RGB(0, 0, 0), bg: RGB(255, 255, 255))
        switch theme {
        case .dark: return [dark]
        case .light: return [light]
        case .ansi, .mono: return [dark, light]
        }
    }

    struct RGB: Equatable {
        var r, g, b: Double
        init(_ r: Double, _ g: Double, _ b: Double) { (self.r, self.g, self.b) = (r, g, b) }

        /// xterm's palette: the 16 colours, the 6x6x6 cube, the greys.
        init(palette n: Int16) {
            let base: [(Double, Double, Double)] = [
                (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
                (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
                (255, 0, 255), (0, 255, 255), (255, 255, 255),
            ]
            let i = Int(n)
            if i < 16 {
                (r, g, b) = base[i]
            } else if i < 232 {
                let level: [Double] = [0, 95, 135, 175, 215, 255]
                (r, g, b) = (level[(i - 16) / 36], level[(i - 16) / 6 % 6], level[(i - 16) % 6])
            } else {
                let v = Double(8 + 10 * (i - 232))
                (r, g, b) = (v, v, v)
            }
        }

        /// WCAG relative luminance.
        var luminance: Double {
            func channel(_ c: Double) -> Double {
                let x = c / 255
                return x <= 0.03928 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
        }

        /// WCAG contrast ratio (1 ... 21).
        func contrast(_ other: RGB) -> Double {
            let (a, b) = (luminance, other.luminance)
            return (max(a, b) + 0.05) / (min(a, b) + 0.05)
        }
    }

    static func rgb(_ c: ThemeColor, on terminal: (fg: RGB, bg: RGB)) -> RGB {
        switch c {
        case .terminalForeground: terminal.fg
        case .terminalBackground: terminal.bg
        case .palette(let n): RGB(palette: n)
        }
    }

    @Test(arguments: Theme.allCases)
    func noStyleDrawsItsForegroundInItsBackground(theme: Theme) {
        for colors in Self.colorCounts {
            for style in Self.allStyles {
                let d = theme.drawn(style, colors: colors)
                #expect(d.foreground != d.background, "\(theme) \(colors) colours: \(style)")
                for terminal in Self.terminals(for: theme) {
                    let fg = Self.rgb(d.foreground, on: terminal)
                    let bg = Self.rgb(d.background, on: terminal)
                    #expect(fg != bg, "\(theme) \(colors) colours: \(style)")
                    // The shades a theme picks are meant for its background: readable text
                    // (WCAG AA, 4.5) with 256 colours, 3 with the basic ones. `ansi` leaves
                    // its colours to the terminal's theme.
                    guard theme == .dark || theme == .light else { continue }
                    let needed = colors >= 256 ? 4.5 : 3
                    #expect(fg.contrast(bg) >= needed, "\(theme) \(colors) colours: \(style): \(fg.contrast(bg))")
                }
            }
        }
    }

    @Test func darkHasNoDarkBlueAndLightNoPaleColours() {
        for colors in Self.colorCounts where colors > 0 {
            for c in Theme.dark.foregrounds(colors: colors) where c >= 0 {
                #expect(c != 4 && c != 0 && c != 8 && c != 16 && c != 17 && c != 18, "dark \(colors): \(c)")
            }
            for c in Theme.light.foregrounds(colors: colors) where c >= 0 {
                #expect(c != 3 && c != 7 && c != 11 && c != 15 && c != 6 && c != 14, "light \(colors): \(c)")
            }
        }
    }

    /// The second row of a small build selected, then not: every cell but the bar's draws
    /// differently (reverse video), the bar the same (reversed it would read backwards).
    @Test(arguments: Theme.allCases)
    func theSelectedRowStandsOutAndItsBarReadsTheSame(theme: Theme) {
        var m = model(smallBuild())
        press(&m, .down)
        m.refreshDerived()
        let width = 100
        let renderer = Renderer(ascii: false)
        let selected = renderer.render(m, width: width, height: 8).grid
        press(&m, .down)
        m.refreshDerived()
        let normal = renderer.render(m, width: width, height: 8).grid
        let layout = Layout(width: width, height: 8, detailOpen: false)
        let bar = (layout.nameColumns + 1)..<(layout.nameColumns + 1 + layout.barWidth)
        #expect(layout.barWidth > 0)
        for colors in Self.colorCounts {
            for x in 0..<width {
                let a = theme.drawn(selected[x, 2].style, colors: colors)
                let b = theme.drawn(normal[x, 2].style, colors: colors)
                if bar.contains(x) {
                    #expect(a == b, "\(theme) \(colors) colours, bar column \(x)")
                } else {
                    #expect(a != b, "\(theme) \(colors) colours, column \(x)")
                }
            }
        }
    }
}

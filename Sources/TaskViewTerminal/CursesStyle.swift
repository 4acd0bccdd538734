import CNcurses
import TaskViewCore

/// Maps style roles to colour pairs and attributes. Without colours (NO_COLOR, or a
/// terminal without them) the roles become attributes, and the glyphs keep states apart.
enum CursesStyle {
    static func attributes(_ style: CellStyle, colors: Bool) -> (attr_t, Int16) {
        var attrs = tv_A_NORMAL
        var pair: Int16 = 0
        switch style.role {
        case .normal, .header: break
        case .dim, .skipped: attrs |= tv_A_DIM
        case .executing:
            pair = 3
            if !colors { attrs |= tv_A_BOLD }
        case .succeeded: pair = 2
        case .failed:
            pair = 1
            if !colors { attrs |= tv_A_BOLD }
        case .cancelled:
            pair = 4
            if !colors { attrs |= tv_A_UNDERLINE }
        case .bar: pair = 6
        case .accent: pair = 5
        }
        if style.bold { attrs |= tv_A_BOLD }
        if style.reverse { attrs |= tv_A_REVERSE }
        if style.underline { attrs |= tv_A_UNDERLINE }
        return (attrs, colors ? pair : 0)
    }
}

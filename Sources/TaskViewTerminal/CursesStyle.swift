import CNcurses
import TaskViewCore
import TaskViewIO

/// Maps style roles to colour pairs and attributes (`Theme.look`). Without colours
/// (NO_COLOR, `mono`, or a terminal without them) the roles become attributes, and the
/// glyphs keep states apart.
enum CursesStyle {
    static func attributes(_ style: CellStyle, colors: Bool) -> (attr_t, Int16) {
        let look = Theme.look(style.role, colors: colors)
        var attrs = tv_A_NORMAL
        if look.bold || style.bold { attrs |= tv_A_BOLD }
        if look.dim { attrs |= tv_A_DIM }
        if look.underline || style.underline { attrs |= tv_A_UNDERLINE }
        if style.reverse { attrs |= tv_A_REVERSE }
        return (attrs, look.pair)
    }
}

import ArgumentParser
import TaskViewTerminal

/// The help texts of the display options that say something different for a live run and
/// for a replay (the flags and their defaults are the same).
protocol DisplayHelp {
    /// `--speed X`.
    static var speed: ArgumentHelp { get }
    /// `--exit-when-done`.
    static var exitWhenDone: ArgumentHelp { get }
    /// `--output` (hidden where it means nothing).
    static var output: ArgumentHelp { get }
    /// `--plain`.
    static var plain: ArgumentHelp { get }
}

/// How a session is shown: the options `CommonOptions` (live commands) and `ReplayOptions`
/// (`taskview replay`) both take, declared once; `Help` words them for each.
struct DisplayOptions<Help: DisplayHelp>: ParsableArguments {
    @Option(name: .long, help: Help.speed)
    var speed: Double = 1

    @Flag(
        name: .long,
        help: "No curses: one plain line per state change and a summary (also when stdout is not a terminal).")
    var headless = false

    @Flag(name: .long, help: "Draw with ASCII characters only (automatic for a non-UTF-8 locale).")
    var ascii = false

    @Flag(name: .long, help: Help.exitWhenDone)
    var exitWhenDone = false

    @Flag(name: .long, help: Help.output)
    var output = false

    @Flag(name: .long, help: Help.plain)
    var plain = false

    @Flag(name: .long, help: "Do not use the mouse (by default a click selects a row, a double click opens it).")
    var noMouse = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Colours: dark, light or mono (default: the terminal's 16 ANSI colours; also TASKVIEW_THEME).",
            valueName: "NAME"))
    var theme: String?

    /// The theme: `--theme`, else `TASKVIEW_THEME` (ignored when not a theme), else ANSI.
    var resolvedTheme: Theme {
        if let theme, let t = Theme(name: theme) { return t }
        return TerminalEnvironment.theme()
    }

    /// Plain output: `--plain`, or `TERM=dumb` on a terminal.
    var isPlain: Bool { TerminalEnvironment.plainChosen(flag: plain) }

    func validate() throws {
        if let theme, Theme(name: theme) == nil {
            throw ValidationError("--theme must be dark, light, mono or ansi (got \(theme))")
        }
    }
}

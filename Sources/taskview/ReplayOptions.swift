import ArgumentParser
import TaskViewTerminal

/// The options of `taskview replay`: the display ones of `CommonOptions`. A replay records
/// nothing and draws nothing at random, so `--record` and `--seed` are not offered; they are
/// still recognized (hidden), to refuse them with a clear message rather than "unknown
/// option" (`taskview --record x replay LOG` moves leading options to the subcommand).
struct ReplayOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Replay seconds per real second at the start (1/64 ... 64; < and > change it).", valueName: "X"))
    var speed: Double = 1

    @Flag(
        name: .long,
        help: "No curses: one plain line per state change and a summary (also when stdout is not a terminal).")
    var headless = false

    @Flag(name: .long, help: "Draw with ASCII characters only (automatic for a non-UTF-8 locale).")
    var ascii = false

    @Flag(name: .long, help: "Quit by itself at the end of the log.")
    var exitWhenDone = false

    @Flag(
        name: .long,
        help: """
            No curses (also with TERM=dumb): the log's state lines at the recording's pace (--speed applies) \
            and every 10 s of recorded time a line saying what is running. Ctrl-C stops it (exit 130).
            """)
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

    @Option(name: .long, help: .hidden)
    var record: String?

    @Option(name: .long, help: .hidden)
    var seed: UInt64?

    /// Accepted and meaningless (a replay writes no log).
    @Flag(name: .long, help: .hidden)
    var noRecord = false

    /// Accepted (shared with the live commands); a replay prints no output lines of its own.
    @Flag(name: .long, help: .hidden)
    var output = false

    func validate() throws {
        if let theme, Theme(name: theme) == nil {
            throw ValidationError("--theme must be dark, light, mono or ansi (got \(theme))")
        }
        if record != nil || seed != nil {
            throw ValidationError("a replay records nothing and draws nothing at random: no --record or --seed")
        }
    }
}

import ArgumentParser

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
        if record != nil || seed != nil {
            throw ValidationError("a replay records nothing and draws nothing at random: no --record or --seed")
        }
    }
}

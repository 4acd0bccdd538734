import ArgumentParser

/// The options of `taskview replay`: the display ones the live commands take too. A replay records
/// nothing and draws nothing at random, so `--record` and `--seed` are not offered; they are
/// still recognized (hidden), to refuse them with a clear message rather than "unknown
/// option" (`taskview --record x replay LOG` moves leading options to the subcommand).
struct ReplayOptions: ParsableArguments {
    /// `--speed`, `--headless`, `--ascii`, `--exit-when-done`, `--plain`, `--no-mouse`,
    /// `--theme` (and `--output`, hidden).
    @OptionGroup var display: DisplayOptions<ReplayDisplayHelp>

    /// `--baseline`, `--min-change`.
    @OptionGroup var compare: BaselineOptions

    @Option(name: .long, help: .hidden)
    var record: String?

    @Option(name: .long, help: .hidden)
    var seed: UInt64?

    /// Accepted and meaningless (a replay writes no log).
    @Flag(name: .long, help: .hidden)
    var noRecord = false

    /// Recognized to be refused: a replay runs nothing.
    @Flag(name: [.customShort("k"), .long], help: .hidden)
    var keepGoing = false

    func validate() throws {
        if record != nil || seed != nil {
            throw ValidationError("a replay records nothing and draws nothing at random: no --record or --seed")
        }
        if keepGoing {
            throw ValidationError(
                "-k/--keep-going is an option of a run (taskview run -k FILE): a replay plays what was recorded")
        }
    }
}

/// The display options' help for `taskview replay`.
enum ReplayDisplayHelp: DisplayHelp {
    static var speed: ArgumentHelp {
        ArgumentHelp("Replay seconds per real second at the start (1/64 ... 64; < and > change it).", valueName: "X")
    }
    static var exitWhenDone: ArgumentHelp { "Quit by itself at the end of the log." }
    /// Accepted (shared with the live commands); a replay prints no output lines of its own.
    static var output: ArgumentHelp { .hidden }
    static var plain: ArgumentHelp {
        """
        No curses (also with TERM=dumb): the log's state lines at the recording's pace (--speed applies) \
        and every 10 s of recorded time a line saying what is running. Ctrl-C stops it (exit 130).
        """
    }
}

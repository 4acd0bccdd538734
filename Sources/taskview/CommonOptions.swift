import ArgumentParser
import TaskGraph
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// Options every live command shares (`taskview`, `demo`, `run`; `replay` uses the
/// display ones).
struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the replay log to PATH (default: a timestamped file under ./taskview-logs/).", valueName: "PATH"))
    var record: String?

    @Flag(name: .long, help: "Do not write a replay log.")
    var noRecord = false

    @Option(name: .long, help: ArgumentHelp("Seed of every random draw.", valueName: "N"))
    var seed: UInt64 = 0

    /// `--speed`, `--headless`, `--ascii`, `--exit-when-done`, `--output`, `--plain`,
    /// `--no-mouse`, `--theme`.
    @OptionGroup var display: DisplayOptions<LiveDisplayHelp>

    @Option(
        name: [.customShort("j"), .long],
        help: ArgumentHelp(
            "At most N commands at once in the whole scenario, as make -j (default: the number of cores).",
            valueName: "N"))
    var jobs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Output kept per command, in the log and for o (the pager): bytes, or with K, M or G (default 64M).",
            valueName: "SIZE"))
    var outputLimit: String?

    @Flag(
        name: .long,
        help: "No ETA from earlier runs of the same scenario file, and this run is not added to its run history.")
    var noHistory = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Send a desktop notification through the terminal (OSC 777, OSC 9, a bell) when a run with a terminal ends after more than SECONDS (default 10).",
            valueName: "SECONDS"))
    var notifyAfter: Double = 10

    @Flag(name: .long, help: "No desktop notification at the end of a run.")
    var noNotify = false

    @Flag(
        name: [.customShort("k"), .long],
        help:
            "Keep going past failures, as make -k: every group runs each step that does not need a failed one (the exit status is still 1)."
    )
    var keepGoing = false

    @Flag(
        name: .long,
        help:
            "Exit 1 when a step failed and then passed in this run (a restart or a retry): flaky is not passed. Default: the newest attempts decide."
    )
    var failOnFlaky = false

    /// `--otlp`, `--no-otlp`.
    @OptionGroup var otlp: OTLPOptions

    /// `--baseline`, `--min-change`.
    @OptionGroup var compare: BaselineOptions
    /// `--slow-factor`, `--slow-after`, `--silent-after`.
    @OptionGroup var warnings: WarningOptions

    /// `--jobs`, or the number of cores.
    var jobSlots: Int {
        jobs ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    func validate() throws {
        guard notifyAfter >= 0, notifyAfter.isFinite else {
            throw ValidationError("--notify-after must be a number of seconds, 0 or more (got \(notifyAfter))")
        }
        guard display.speed > 0, display.speed.isFinite else {
            throw ValidationError("--speed must be a number greater than 0 (got \(display.speed))")
        }
        if let jobs, jobs < 1 {
            throw ValidationError("--jobs must be at least 1 (got \(jobs))")
        }
        if outputLimit != nil && outputLimitBytes == nil {
            throw ValidationError("--output-limit must be a size such as 1000, 64K, 64M or 1G (got \(outputLimit!))")
        }
        if noRecord && record != nil {
            throw ValidationError("--record and --no-record cannot be used together")
        }
    }

    /// `--output-limit` in bytes (nil: not a size).
    var outputLimitBytes: Int? {
        guard let text = outputLimit, !text.isEmpty else {
            return outputLimit == nil ? CommandOutputFiles.defaultLimit : nil
        }
        let shifts: [Character: Int] = ["K": 10, "M": 20, "G": 30]
        var digits = Substring(text)
        var shift = 0
        if let last = text.last?.uppercased().first, let s = shifts[last] {
            shift = s
            digits = digits.dropLast()
        }
        guard let n = Int(digits), n >= 0, n <= Int.max >> (shift + 1) else { return nil }
        return n << shift
    }

    /// The log to write, nil with `--no-record`. The default is
    /// `taskview-logs/taskview-YYYYMMDD-HHMMSS[-N].jsonl` (created on demand).
    func recordPath(prefix: String = "taskview") throws -> String? {
        if noRecord { return nil }
        if let record { return record }
        let dir = "taskview-logs"
        do {
            try PrivateFile.makeDirectory(dir) // 0700: the logs hold every output line
        } catch {
            throw ValidationError("cannot create directory \(dir): \(error.reason)")
        }
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buf = [CChar](repeating: 0, count: 32)
        strftime(&buf, buf.count, "%Y%m%d-%H%M%S", &parts)
        let stamp = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var path = "\(dir)/\(prefix)-\(stamp).jsonl"
        var n = 2
        while access(path, F_OK) == 0 {
            path = "\(dir)/\(prefix)-\(stamp)-\(n).jsonl"
            n += 1
        }
        return path
    }

    /// The options of `LiveRunner.run`.
    func liveOptions(onKey: (@Sendable (String, NodeID?) -> Void)? = nil) -> LiveOptions {
        var options = LiveOptions(
            speed: display.speed, headless: display.headless, ascii: display.ascii,
            exitWhenDone: display.exitWhenDone, onKey: onKey)
        options.output = display.output
        options.outputLimit = outputLimitBytes ?? CommandOutputFiles.defaultLimit
        options.plain = display.isPlain
        options.mouse = !display.noMouse
        options.theme = display.resolvedTheme
        return options
    }
}

/// The display options' help for the live commands.
enum LiveDisplayHelp: DisplayHelp {
    static var speed: ArgumentHelp {
        ArgumentHelp(
            "Simulated seconds per real second (> 0; 2 is twice as fast). Headless runs ignore it.", valueName: "X")
    }
    static var exitWhenDone: ArgumentHelp { "Quit by itself when the root task settled." }
    static var output: ArgumentHelp {
        "Headless: also print every output line of a command, as [T] #ID NAME | TEXT."
    }
    static var plain: ArgumentHelp {
        """
        No curses (also with TERM=dumb): state lines as they happen, paced like the dashboard, and every \
        10 s a line saying what is running. For screen readers, Emacs shells and CI.
        """
    }
}

extension CommonOptions {
    /// Sends the end-of-run notification when the run, begun at `started`
    /// (`RunNotifier.now()`), lasted more than `--notify-after` with a terminal.
    func notifyIfDue(name: String, status: Int32, started: Double) {
        let seconds = RunNotifier.now() - started
        guard
            RunNotification.due(
                seconds: seconds, after: notifyAfter, enabled: !noNotify, terminal: RunNotifier.hasTerminal)
        else { return }
        RunNotifier.send(RunNotification(name: name, status: status, seconds: seconds))
    }
}

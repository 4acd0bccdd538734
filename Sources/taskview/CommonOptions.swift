import ArgumentParser
import TaskGraph
import TaskViewCore
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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Simulated seconds per real second (> 0; 2 is twice as fast). Headless runs ignore it.", valueName: "X"))
    var speed: Double = 1

    @Flag(
        name: .long,
        help: "No curses: one plain line per state change and a summary (also when stdout is not a terminal).")
    var headless = false

    @Flag(name: .long, help: "Draw with ASCII characters only (automatic for a non-UTF-8 locale).")
    var ascii = false

    @Flag(name: .long, help: "Quit by itself when the root task settled.")
    var exitWhenDone = false

    @Flag(name: .long, help: "Headless: also print every output line of a command, as [T] #ID NAME | TEXT.")
    var output = false

    @Flag(
        name: .long,
        help: """
            No curses (also with TERM=dumb): state lines as they happen, paced like the dashboard, and every \
            10 s a line saying what is running. For screen readers, Emacs shells and CI.
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

    /// Plain output: `--plain`, or a terminal that cannot do curses (`TERM=dumb`).
    var isPlain: Bool { TerminalEnvironment.plainChosen(flag: plain) }

    @Option(
        name: [.customShort("j"), .long],
        help: ArgumentHelp(
            "At most N commands at once in the whole scenario, as make -j (default: the number of cores).",
            valueName: "N"))
    var jobs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Output kept per command for o (the pager): bytes, or with K, M or G (default 64M).", valueName: "SIZE"))
    var outputLimit: String?

    @Flag(name: .long, help: "No ETA from the logs of earlier runs of the same scenario file.")
    var noHistory = false

    /// `--jobs`, or the number of cores.
    var jobSlots: Int {
        jobs ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    func validate() throws {
        if let theme, Theme(name: theme) == nil {
            throw ValidationError("--theme must be dark, light, mono or ansi (got \(theme))")
        }
        guard speed > 0, speed.isFinite else {
            throw ValidationError("--speed must be a number greater than 0 (got \(speed))")
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
        guard let text = outputLimit, !text.isEmpty else { return outputLimit == nil ? OutputFiles.defaultLimit : nil }
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
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw ValidationError(
                "cannot create directory \(dir): \(String(decoding: UnsafeRawBufferPointer(start: strerror(errno), count: strlen(strerror(errno))), as: UTF8.self))"
            )
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
            speed: speed, headless: headless, ascii: ascii, exitWhenDone: exitWhenDone,
            onKey: onKey)
        options.output = output
        options.outputLimit = outputLimitBytes ?? OutputFiles.defaultLimit
        options.plain = isPlain
        options.mouse = !noMouse
        options.theme = resolvedTheme
        return options
    }
}

import ArgumentParser
import TaskViewCore
import TaskViewTerminal
#if canImport(Glibc)
import Glibc
#endif

/// `taskview replay LOG`: the dashboard (or the headless lines) driven by a replay log.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recorded session (read-only; records nothing).",
        discussion: """
            Keys: space play/pause, . and , step one event, ←/→ seek ∓5 s, 0-9 jump to 0-90 %, \
            < and > halve/double the speed. Exit status: that of the recorded root (0/1/130), 2 for a bad \
            log, 3 when the log's root never settled (a crashed session).
            """)

    @Argument(help: ArgumentHelp("The replay log (.jsonl).", valueName: "LOG"))
    var log: String

    @Flag(name: .long, help: "Replay past corrupt lines, counting them.")
    var skipBadLines = false

    @Flag(name: .long, help: "No curses: print the lines a headless live run printed.")
    var headless = false

    @Flag(name: .long, help: "Draw with ASCII characters only.")
    var ascii = false

    @Option(name: .long, help: ArgumentHelp("Initial replay speed (1/64 ... 64).", valueName: "X"))
    var speed: Double = 1

    @Flag(name: .long, help: "Quit by itself at the end of the log.")
    var exitWhenDone = false

    func validate() throws {
        // The range the < and > keys allow.
        guard speed >= ReplaySource.minSpeed, speed <= ReplaySource.maxSpeed else {
            throw ValidationError("--speed must be between 1/64 and 64 (got \(Format.speed(speed)))")
        }
    }

    func run() throws {
        let replay = try loadLogForCommand(log, skipBadLines: skipBadLines)
        if headless || isatty(1) == 0 {
            for line in ReplaySource.headlessLines(replay) { print(line) }
        } else {
            let source = ReplaySource(log: replay, title: Self.title(replay, path: log), speed: speed)
            let options = DashboardLoop.Options(ascii: ascii || !Self.utf8Locale(), noColor: Self.noColor(),
                                                exitWhenDone: exitWhenDone)
            do {
                let model = try DashboardLoop.run(source: source, title: source.title, options: options)
                for line in ExitSummary.lines(model: model, logPath: nil) { print(line) }
            } catch {
                Main.writeStderr("taskview: \(error); showing plain output instead\n")
                for line in ReplaySource.headlessLines(replay) { print(line) }
            }
        }
        let status = Self.status(replay)
        if status != 0 { throw ExitCode(status) }
    }

    /// 0/1/130 by the recorded root's outcome; 3 when it never settled.
    static func status(_ log: ReplayLog) -> Int32 {
        switch log.outcome {
        case "succeeded": 0
        case "failed": 1
        case "cancelled": 130
        default: 3
        }
    }

    static func title(_ log: ReplayLog, path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return "replay \(file)"
    }

    static func utf8Locale() -> Bool {
        setlocale(LC_ALL, "")
        guard let cs = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: cs).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    static func noColor() -> Bool {
        guard let v = getenv("NO_COLOR") else { return false }
        return v.pointee != 0
    }
}

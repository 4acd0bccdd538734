import ArgumentParser
import TaskGraph
import TaskViewCore
import TaskViewIO
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
            < and > halve/double the speed, [ and ] previous/next marker (a failure, cancel or root settling), \
            n/N and c/C the next/previous moment a node failed or was cancelled, t seek to a time (1:30, 90s, \
            45%), F find the moment a name or info appears, z then 1-9 (or Alt-1..9) fold to a depth. Exit status: that of the recorded run (0/1/130, as the run exited), 2 for a bad \
            log, 3 when the log's root never settled (a crashed session).
            """)

    @Argument(help: ArgumentHelp("The replay log (.jsonl).", valueName: "LOG"))
    var log: String

    @Flag(name: .long, help: "Replay past corrupt lines, counting them.")
    var skipBadLines = false

    /// --headless, --ascii, --speed (the initial replay speed, 1/64 ... 64), --exit-when-done;
    /// not --record or --seed, which a replay refuses.
    @OptionGroup var common: ReplayOptions

    @Flag(name: .long, help: "Follow a log that is still being written (like tail -f), until its end line.")
    var follow = false

    func validate() throws {
        // The range the < and > keys allow.
        guard common.display.speed >= ReplaySource.minSpeed, common.display.speed <= ReplaySource.maxSpeed else {
            throw ValidationError("--speed must be between 1/64 and 64 (got \(Format.speed(common.display.speed)))")
        }
        if follow && skipBadLines { throw ValidationError("--follow and --skip-bad-lines cannot be used together") }
    }

    func run() throws {
        if follow {
            let status = try FollowRun.run(
                log, headless: common.display.headless || common.display.isPlain, ascii: common.display.ascii,
                exitWhenDone: common.display.exitWhenDone, mouse: !common.display.noMouse,
                theme: common.display.resolvedTheme)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let replay = try loadLogForCommand(log, skipBadLines: skipBadLines)
        // --baseline: a log of the same scenario as this one (any log when this one ran none).
        let (baseline, notice) = common.compare.load(scenarioFile: replay.header.file)
        if let notice { writeStderr("taskview: \(notice)\n") }
        if !common.display.headless && common.display.isPlain {
            try Self.playPlain(replay, speed: common.display.speed)
        } else if common.display.headless || isatty(1) == 0 {
            for line in ReplaySource.headlessLines(replay, baseline: baseline) { print(line) }
        } else {
            let source = ReplaySource(log: replay, title: Self.title(replay, path: log), speed: common.display.speed)
            source.baseline = baseline
            let options = DashboardLoop.Options(
                ascii: common.display.ascii || !Self.utf8Locale(), noColor: Self.noColor(),
                exitWhenDone: common.display.exitWhenDone, mouse: !common.display.noMouse,
                theme: common.display.resolvedTheme)
            do {
                let model = try DashboardLoop.run(source: source, title: source.title, options: options)
                for line in ExitSummary.lines(model: model) { print(line) }
            } catch {
                writeStderr("taskview: \(error); showing plain output instead\n")
                for line in ReplaySource.headlessLines(replay) { print(line) }
            }
        }
        let status = Self.status(replay)
        if status != 0 { throw ExitCode(status) }
    }

    /// `--plain` (or `TERM=dumb`): the lines at the pace of the recording, each flushed as it
    /// comes. Ctrl-C, SIGTERM or SIGHUP stop it after a whole line: the summary of what was
    /// played, exit status 130.
    static func playPlain(_ replay: ReplayLog, speed: Double) throws {
        Signals.install()
        let ending = PlainReplay.run(
            replay, pacing: .realTime(speed: speed), interrupted: { Signals.pending != 0 },
            print: { line in
                print(line)
                fflush(nil)
            })
        if case .interrupted(let at) = ending {
            writeStderr(
                "taskview: replay stopped at \(Format.seconds3(at))s of \(Format.seconds3(replay.duration))s\n")
            throw ExitCode(130)
        }
    }

    /// 0/1/130 by the recorded root's outcome (after restarts, its newest attempts'); 3 when
    /// it never settled.
    static func status(_ log: ReplayLog) -> Int32 {
        if log.rootSettled, let outcome = ReplaySource.restartedOutcome(log) { return outcome.exitStatus }
        return switch log.outcome {
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

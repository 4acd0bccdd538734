import CNcurses
import TaskGraph
import TaskViewCore
import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// How a live run looks and ends.
package struct LiveOptions: Sendable {
    /// Simulated seconds per real second (> 0); headless runs ignore it.
    package var speed: Double = 1
    /// No curses even on a terminal.
    package var headless = false
    /// ASCII glyphs only (also chosen automatically for a non-UTF-8 locale).
    package var ascii = false
    /// Quit by itself when the root settled.
    package var exitWhenDone = false
    /// Headless: also print commands' output lines (`--output`).
    package var output = false
    /// What a scenario's `id`s and `needs` became (the detail pane lists them).
    package var needs = ScenarioNeedsMap()
    /// Restarts nodes of a scenario run (`r`/`R` in the dashboard); nil: no restarts.
    package var restarter: ScenarioRestarter?
    /// Plain mode (`--plain`, `TERM=dumb`): headless lines paced live, with `running:` lines.
    package var plain = false
    /// Mouse reports on (`--no-mouse` turns them off).
    package var mouse = true
    /// The colours (`--theme`, `TASKVIEW_THEME`).
    package var theme: Theme = .ansi
    /// Earlier runs of the same scenario file: time-based progress and the ETA.
    package var history: RunHistory?
    /// The run compared with: the Δ column (`d`), the detail pane, the end-of-run report.
    package var baseline: Baseline?
    /// The `slow` and `silent` warnings of a scenario run (nil: none).
    package var warnings: SharedWarningRules?
    /// Where the dashboard keeps every command's whole output (`o`); nil: a temporary
    /// directory removed at exit.
    package var outputDirectory: String?
    /// Bytes of output kept per command (`--output-limit`).
    package var outputLimit = CommandOutputFiles.defaultLimit
    /// Headless: the clock time the lines' times count from (the log's `t = 0`); nil: when
    /// the run starts (0 on a virtual clock).
    package var origin: Double?
    /// Why the replay log is cut (a full disk): said in the footer as soon as it happens.
    package var recordingError: (@Sendable () -> RecordingError?)?
    /// The live OTLP stream's trouble, said in the footer once (`OTLPStream.trouble`).
    package var otlpTrouble: (@Sendable () -> String?)?
    /// Called for every key that cancelled something: the key's name and the node.
    package var onKey: (@Sendable (_ key: String, _ selection: NodeID?) -> Void)?
    /// Called once the run is over, with its final tree (the run history's entry).
    package var finished: (@Sendable (TreeModel) -> Void)?
    /// A notice the dashboard's footer shows from the start (headless: on stderr already).
    package var notice: String?

    package init(
        speed: Double = 1, headless: Bool = false, ascii: Bool = false, exitWhenDone: Bool = false,
        onKey: (@Sendable (String, NodeID?) -> Void)? = nil
    ) {
        self.speed = speed
        self.headless = headless
        self.ascii = ascii
        self.exitWhenDone = exitWhenDone
        self.onKey = onKey
    }
}

/// The entry point for every live run (default demo, `demo`, `run`): headless when stdout
/// is not a terminal or `--headless`, else the curses dashboard.
package enum LiveRunner {
    /// Runs `root` of `graph` (on `clock`) to the end; `start` executes the root and is
    /// called once observation has begun. Quitting before the root settled cancels it
    /// (source `quit`, or `signal` for Ctrl-C/SIGTERM), and so does quitting while a
    /// restart's attempts run. Returns the exit status (`RunVerdict`): 0 succeeded, 1 a step
    /// failed, 130 cancelled.
    package static func run(
        graph: Graph, clock: any GraphClock, root: NodeID, title: String,
        options: LiveOptions, start: @escaping () -> Void
    ) -> Int32 {
        if !options.headless && options.plain {
            return runHeadless(
                graph: graph, clock: clock, root: root, output: options.output, origin: options.origin,
                history: options.history, baseline: options.baseline, plain: .realTime(speed: options.speed),
                warnings: options.warnings, finished: options.finished, start: start)
        }
        if options.headless || isatty(1) == 0 {
            return runHeadless(
                graph: graph, clock: clock, root: root, output: options.output, origin: options.origin,
                history: options.history, baseline: options.baseline, warnings: options.warnings,
                finished: options.finished, start: start)
        }
        let ascii = options.ascii || !TerminalEnvironment.isUTF8()
        let source = LiveGraphSource(
            graph: graph, clock: clock, root: root, title: title,
            speed: options.speed, onKey: options.onKey, start: start)
        source.needs = options.needs
        source.restarter = options.restarter
        source.history = options.history
        source.baseline = options.baseline
        source.warnings = options.warnings
        source.writeFailure.recordingError = options.recordingError
        source.writeFailure.otlpTrouble = options.otlpTrouble
        source.notice = options.notice
        do {
            source.outputFiles = try CommandOutputFiles(directory: options.outputDirectory, limit: options.outputLimit)
        } catch {
            writeStderr("taskview: \(error); o cannot show whole outputs\n")
        }
        defer { source.outputFiles?.close() }
        let loopOptions = DashboardLoop.Options(
            ascii: ascii, noColor: TerminalEnvironment.noColor(),
            exitWhenDone: options.exitWhenDone, mouse: options.mouse, theme: options.theme)
        let model: DashboardModel
        do {
            model = try DashboardLoop.run(source: source, title: title, options: loopOptions)
        } catch {
            writeStderr("taskview: \(error); showing plain output instead\n")
            return runHeadless(
                graph: graph, clock: clock, root: root, output: options.output, origin: options.origin,
                history: options.history, baseline: options.baseline, warnings: options.warnings,
                finished: options.finished, start: start)
        }
        options.finished?(model.tree)
        for line in ExitSummary.lines(model: model) { print(line) }
        // A full disk cut an output file: said after the outcome, and exit 2 (as for the log).
        source.outputFiles?.close()
        if let error = source.outputFiles?.writeError {
            writeStderr("taskview: \(Sanitizer.clean(error.description))\n")
            return 2
        }
        // No outcome: quit while the root or a restart's attempts ran (they were cancelled).
        return (model.outcome ?? .cancelled).exitStatus
    }

    static func runHeadless(
        graph: Graph, clock: any GraphClock, root: NodeID, output: Bool, origin: Double? = nil,
        history: RunHistory? = nil, baseline: Baseline? = nil, plain: PlainPacing? = nil,
        warnings: SharedWarningRules? = nil, finished: ((TreeModel) -> Void)? = nil, start: @escaping () -> Void
    ) -> Int32 {
        Signals.install()
        let outcome = HeadlessRunner.run(
            graph: graph, clock: clock, root: root,
            interrupted: { Signals.pending != 0 }, output: output, origin: origin, history: history, baseline: baseline,
            plain: plain, warnings: warnings, finished: finished ?? { _ in },
            print: { line in
                print(line)
                if plain != nil { fflush(nil) } // live: each line as it happens
            }, start: start)
        return outcome.exitStatus
    }
}

/// Locale and environment checks shared by every dashboard command.
package enum TerminalEnvironment {
    /// Sets the locale from the environment and tells whether it is UTF-8 (else the
    /// dashboard draws ASCII only).
    package static func isUTF8() -> Bool {
        setlocale(LC_ALL, "")
        guard let cs = tv_codeset() else { return false }
        let name = String(cString: cs).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    /// `TERM=dumb` (or no TERM at all): a terminal curses cannot draw on; plain output.
    package static func isDumb() -> Bool {
        guard let v = getenv("TERM") else { return false }
        return String(cString: v) == "dumb"
    }

    /// Plain mode (live lines, `running:` lines): `--plain` whatever stdout is, or `TERM=dumb`
    /// on a terminal (into a pipe or file, `TERM=dumb` alone gets the headless output).
    package static func plainChosen(flag: Bool) -> Bool {
        flag || (isDumb() && isatty(1) != 0)
    }

    /// `TASKVIEW_THEME` when it names a theme, else the ANSI colours.
    package static func theme() -> Theme {
        guard let v = getenv("TASKVIEW_THEME") else { return .ansi }
        return Theme(name: String(cString: v)) ?? .ansi
    }

    /// NO_COLOR set to anything non-empty (no-color.org).
    package static func noColor() -> Bool {
        guard let v = getenv("NO_COLOR") else { return false }
        return v.pointee != 0
    }
}

import ArgumentParser
import Synchronization
import TaskGraph
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a scenario live (dashboard or headless), recorded unless `--no-record`: the common
/// path of `taskview`, `demo` and `run`.
enum ScenarioRunner {
    static func run(_ scenario: Scenario, common: CommonOptions) throws -> Int32 {
        if scenario.runsCommands && common.display.speed != 1 {
            writeStderr(
                "taskview: --speed cannot be used with \(Sanitizer.clean(scenario.name)): it runs real commands, which take real time\n"
            )
            throw ExitCode(2)
        }
        let started = RunNotifier.now()
        let otlp = try common.otlp.config()
        let logPath = try common.recordPath(prefix: scenario.name)
        // A signal while the graph is being built: nothing has run; no log is left behind.
        Signals.react { _ in
            if let logPath { unlink(logPath) }
            Signals.exitAtOnce("taskview: interrupted before the run started\n")
        }
        // Earlier runs of the same file: its history file only, never the logs.
        var history: RunHistory?
        var historyNotice: String?
        var previous: HistoryEntry?
        let historyFile =
            common.noHistory
            ? nil
            : scenario.file.map { HistoryFile(scenarioFile: $0, directory: logPath.map(directory) ?? "taskview-logs") }
        let startTime = wallClock()
        // The inputs each node starts from (its definition, its directory's git state): read
        // before anything runs.
        let inputs = historyFile == nil ? [:] : runInputs(scenario)
        if let historyFile {
            let entries = historyFile.load { historyNotice = $0 }
            previous = entries.last
            var h = RunHistory(entries: entries)
            h.flaky = FlakyHistory(entries: entries, current: inputs, start: startTime)
            if let historyNotice { writeStderr("taskview: \(Sanitizer.clean(historyNotice))\n") }
            if h.runCount > 0 { history = h }
        }
        let session: ScenarioSession
        do {
            session = try ScenarioSession(
                scenario: scenario, seed: common.seed, recordTo: logPath, producer: Producer.line,
                jobs: common.jobSlots, keepGoing: common.keepGoing)
        } catch {
            // A `RecordingError` says `PATH: REASON`.
            writeStderr("taskview: cannot write \(Sanitizer.clean(String(describing: error)))\n")
            throw ExitCode(2)
        }
        session.guardProcesses()
        let stream = otlp.map { config in
            OTLPRun.start(
                graph: session.graph,
                header: OTLPRun.header(
                    created: session.recorder?.created, producer: Producer.line, scenario: scenario.name,
                    seed: common.seed),
                origin: session.origin, config: config)
        }
        // From here a signal cancels the root at once, whatever the main thread is doing (a
        // long cascade of zero-duration work runs inside one step of its loop).
        let graph = session.graph
        let root = session.rootID
        Signals.react { _ in graph.cancel(root, source: ViewerCancelSource.signal) }
        let recorder = session.recorder
        recorder?.outputLimit = common.outputLimitBytes // the log's bound as the output files'
        var options = common.liveOptions(onKey: { key, node in
            recorder?.recordKey(key, node: node)
        })
        options.needs = session.needs
        options.restarter = ScenarioRestarter(session: session)
        options.history = history
        // What the Δ column and the report compare with: --baseline (none when it cannot be
        // used), else the previous run.
        let (named, baselineNotice) = common.compare.load(scenarioFile: scenario.file)
        options.baseline =
            common.compare.baseline != nil
            ? named
            : previous.map {
                Baseline(record: RunRecord(entry: $0), name: Baseline.previousRun, minChange: common.compare.minChange)
            }
        if let baselineNotice {
            writeStderr("taskview: \(baselineNotice)\n")
            historyNotice = historyNotice ?? baselineNotice
        }
        let warnings = SharedWarningRules(WarningRules(thresholds: common.warnings.thresholds, history: history))
        options.warnings = warnings
        if let recorder { options.recordingError = { recorder.writeError } }
        if let stream { options.otlpTrouble = { stream.trouble() } }
        options.notice = historyNotice
        // This run's entry, with its outcome whatever it is (not without a log: nothing is
        // written then).
        let entry = Mutex<HistoryEntry?>(nil)
        if historyFile != nil, let logPath {
            let keys = inputs.compactMapValues(\.definition)
            let git = inputs.compactMapValues { k in k.commit.map { GitInput(commit: $0, dirty: k.dirty ?? false) } }
            let run = logPath.split(separator: "/").last.map(String.init) ?? logPath
            let root = session.rootID.rawValue
            options.finished = { tree in
                // The status is the run's exit status, known when it returns.
                let e = HistoryEntry(
                    tree: tree, root: root, run: run, start: startTime, status: 0, keys: keys, git: git,
                    gaps: warnings.longestGaps(in: tree))
                entry.withLock { $0 = e }
            }
        }
        // `--fail-on-flaky`: whether a step failed and then passed in this run.
        let flakyInRun = Mutex(false)
        if common.failOnFlaky {
            let recordEntry = options.finished
            options.finished = { tree in
                recordEntry?(tree)
                let flaky = !RunReport(tree: tree).flaky.isEmpty
                flakyInRun.withLock { $0 = flaky }
            }
        }
        // The whole output of each command, beside the log (`o`); without a log, in a
        // temporary directory removed at exit.
        options.outputDirectory = logPath.map { p in
            (p.hasSuffix(".jsonl") ? String(p.dropLast(6)) : p) + ".output"
        }
        options.origin = session.origin // headless times as in the log
        var status = LiveRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID,
            title: scenario.name, options: options, start: { session.start() })
        if status == 0 && flakyInRun.withLock({ $0 }) {
            writeStderr("taskview: a step failed and then passed (--fail-on-flaky): exit status 1\n")
            status = 1
        }
        Signals.react(nil)
        // No process of a command outlives taskview: they were cancelled with the root.
        if !session.waitForCommands() {
            writeStderr("taskview: some command processes did not end in time\n")
        }
        session.terminateLeftovers()
        session.finishRecording()
        if let historyFile, var e = entry.withLock({ $0 }) {
            e.status = Int(status)
            do { try historyFile.append(e) } catch { writeStderr("taskview: \(Sanitizer.clean(error.description))\n") }
        }
        OTLPRun.finish(stream)
        let written = LogWritten.report(path: logPath, recorder: session.recorder)
        common.notifyIfDue(name: scenario.name, status: status, started: started)
        return written ? status : 2
    }

    /// The input key of each node of `scenario` by its path: its definition, and the git
    /// state of its directory (git runs once per distinct directory, here at the start).
    static func runInputs(_ scenario: Scenario) -> [String: InputKey] {
        // A demo (`demo:NAME`) runs in the current directory.
        let base = scenario.file.flatMap { $0.hasPrefix("/") ? directory($0) : nil } ?? "."
        let dirs = InputKey.directories(scenario, base: base)
        let git = GitProbe.inputs(of: Set(dirs.values).sorted())
        return InputKey.keys(scenario, base: base, git: git)
    }

    /// The directory of the file at `path` (`.` for a bare name).
    static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Seconds since 1970 (UTC), now.
    static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Loads a scenario or exits 2 with `FILE:LINE:COLUMN: message` on stderr (or what
    /// `explain` says instead, when the file is not a scenario at all).
    static func load(
        _ body: () throws(ScenarioError) -> Scenario,
        explain: () -> String? = { nil }
    ) throws -> Scenario {
        // A signal while reading and checking the file: nothing started, nothing written.
        Signals.react { _ in Signals.exitAtOnce("taskview: interrupted before the run started\n") }
        do {
            return try body()
        } catch {
            writeStderr("taskview: \(explain() ?? Sanitizer.clean(error.description))\n")
            throw ExitCode(2)
        }
    }

    /// The default demo (`taskview` without a subcommand).
    static func runDefault(_ common: CommonOptions) throws -> Int32 {
        try run(
            load { () throws(ScenarioError) in try ScenarioLoader.demo(ScenarioLoader.defaultDemo) }, common: common)
    }
}

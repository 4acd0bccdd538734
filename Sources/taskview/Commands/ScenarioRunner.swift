import ArgumentParser
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
        let logPath = try common.recordPath(prefix: scenario.name)
        // A signal while the graph is being built: nothing has run; no log is left behind.
        Signals.react { _ in
            if let logPath { unlink(logPath) }
            Signals.exitAtOnce("taskview: interrupted before the run started\n")
        }
        // Earlier runs of the same file, read before this run's log exists.
        var history: RunHistory?
        if !common.noHistory, let file = scenario.file {
            let dir = logPath.map { p in p.lastIndex(of: "/").map { String(p[..<$0]) } ?? "." } ?? "taskview-logs"
            let h = RunHistory.load(file: file, directory: dir.isEmpty ? "/" : dir) { notice in
                writeStderr("taskview: \(Sanitizer.clean(notice))\n")
            }
            if h.runCount > 0 { history = h }
        }
        let session: ScenarioSession
        do {
            session = try ScenarioSession(
                scenario: scenario, seed: common.seed, recordTo: logPath, producer: Producer.line,
                jobs: common.jobSlots, keepGoing: common.keepGoing)
        } catch {
            writeStderr("taskview: cannot write the replay log: \(Sanitizer.clean(String(describing: error)))\n")
            throw ExitCode(2)
        }
        session.guardProcesses()
        // From here a signal cancels the root at once, whatever the main thread is doing (a
        // long cascade of zero-duration work runs inside one step of its loop).
        let graph = session.graph
        let root = session.rootID
        Signals.react { _ in graph.cancel(root, source: ViewerCancelSource.signal) }
        let recorder = session.recorder
        var options = common.liveOptions(onKey: { key, node in
            recorder?.recordKey(key, node: node)
        })
        options.needs = session.needs
        options.restarter = ScenarioRestarter(session: session)
        options.history = history
        // The whole output of each command, beside the log (`o`); without a log, in a
        // temporary directory removed at exit.
        options.outputDirectory = logPath.map { p in
            (p.hasSuffix(".jsonl") ? String(p.dropLast(6)) : p) + ".output"
        }
        options.origin = session.origin // headless times as in the log
        let status = LiveRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID,
            title: scenario.name, options: options, start: { session.start() })
        Signals.react(nil)
        // No process of a command outlives taskview: they were cancelled with the root.
        if !session.waitForCommands() {
            writeStderr("taskview: some command processes did not end in time\n")
        }
        session.terminateLeftovers()
        session.finishRecording()
        if let logPath { writeStderr("Log written to \(Sanitizer.clean(logPath))\n") }
        return status
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

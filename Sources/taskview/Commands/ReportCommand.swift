import ArgumentParser
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

/// `taskview report LOG [--format text|json]` (docs/taskview.md, "taskview report").
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract:
            "Print a replay log's report: the first failure, the steps fixed by restart, the flaky steps, the critical path, the slowest commands, the longest waits, the most CPU and memory, the counts.",
        discussion: """
            The same report a run prints when it ends. --format json writes one JSON object \
            with the keys firstFailure, fixedByRestart, allowed, flaky, criticalPath, slowest, waits, \
            cpu, memory, counts, duration and warnings.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Argument(help: ArgumentHelp("The replay log (.jsonl).", valueName: "LOG"))
    var log: String

    @Option(name: .long, help: "text (default) or json.")
    var format: Format = .text

    @Flag(name: .long, help: "Read past corrupt lines, counting them.")
    var skipBadLines = false

    func run() throws {
        let replay = try loadLogForCommand(log, skipBadLines: skipBadLines)
        var tree = TreeModel()
        tree.absorb(replay.events)
        // A recorded scenario run: its history beside the log says which steps are flaky.
        let flaky = FlakyHistory.of(log: log) { writeStderr("taskview: \(Sanitizer.clean($0))\n") }
        let report = RunReport(tree: tree, flaky: flaky)
        switch format {
        case .json:
            print(report.json)
        case .text:
            print(HeadlessSummary.countsLine(tree.counts))
            for line in report.lines { print(line) }
        }
    }
}

import ArgumentParser
import Dispatch
import Synchronization
import TaskGraph
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

/// `taskview diff BASE NEW` (docs/taskview.md, "taskview diff").
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two replay logs: total time, critical paths, slower and faster steps, outcome changes.",
        discussion: """
            Nodes are matched by their path of names (release/build/core; item#2 for the second \
            sibling named item). Steps are listed when their time changed by at least --min-change \
            percent and 50 ms, the 10 largest each way. --format json writes one object with the \
            keys total, criticalPath, slower, faster, outcomes, added and removed. Exit status: 0, \
            1 when the total got slower by more than --fail-slower percent, 2 for unreadable input.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Argument(help: ArgumentHelp("The earlier run's replay log (.jsonl).", valueName: "BASE"))
    var base: String

    @Argument(help: ArgumentHelp("The later run's replay log (.jsonl).", valueName: "NEW"))
    var new: String

    @Option(name: .long, help: "text (default) or json.")
    var format: Format = .text

    @Option(
        name: .long,
        help: ArgumentHelp("Least change of a step worth listing, in percent (0-1000; default 10).", valueName: "PCT"))
    var minChange: Double = RunComparison.defaultMinChange

    @Option(
        name: .long,
        help: ArgumentHelp("Exit 1 when the total got slower by more than PCT percent (0-1000).", valueName: "PCT"))
    var failSlower: Double?

    @Flag(name: .long, help: "Read past corrupt lines, counting them.")
    var skipBadLines = false

    func validate() throws {
        try Self.checkPercent(minChange, option: "--min-change")
        if let failSlower { try Self.checkPercent(failSlower, option: "--fail-slower") }
    }

    /// A percentage option between 0 and 1000.
    static func checkPercent(_ value: Double, option: String) throws {
        guard value.isFinite, value >= 0, value <= 1000 else {
            throw ValidationError(
                "\(option) must be between 0 and 1000 (got \(TaskViewCore.Format.fixed(value, decimals: 1)))")
        }
    }

    func run() throws {
        // The two logs are read at once, one a core (each costs about a second at a
        // million events).
        let paths = [base, new]
        let skip = skipBadLines
        let loaded = Mutex<[Int: Result<RunRecord, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let result = Result<RunRecord, any Error> {
                let replay = try loadLogForCommand(paths[k], skipBadLines: skip, eventsOnly: true)
                var tree = TreeModel()
                tree.absorb(replay.events)
                return RunRecord(tree: tree)
            }
            loaded.withLock { $0[k] = result }
        }
        let records = try loaded.withLock { r in try [r[0]!.get(), r[1]!.get()] }
        let comparison = RunComparison(base: records[0], new: records[1], minChange: minChange)
        switch format {
        case .json: print(comparison.json)
        case .text: for line in comparison.lines { print(line) }
        }
        if let failSlower, let percent = comparison.totalPercent, percent > failSlower { throw ExitCode(1) }
    }
}

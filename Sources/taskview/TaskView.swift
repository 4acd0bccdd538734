import ArgumentParser
import TaskGraph
import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `taskview`: a live tree of a task graph with weighted progress, cancellable from the
/// keyboard. Without a subcommand it runs the default demo live.
struct TaskView: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taskview",
        abstract: "Watch a task graph run: a live tree with weighted progress; cancel any subtree from the keyboard.",
        discussion: """
            Without a subcommand, runs the default demo live. When stdout is not a terminal, \
            or with --headless, prints one line per state change and a summary instead.

            Exit status: 0 the run succeeded, 1 a step failed or was skipped because a step it \
            needs failed (whatever the root's kind; allowFailure steps aside), 130 it was cancelled \
            (also by quitting, restarts included), 2 bad input, 3 a replayed log whose root never settled.
            """,
        version: TaskGraphVersion.current,
        subcommands: TaskView.subcommandTypes
    )

    /// The subcommands (`Commands/*.swift`); `Main` dispatches them before parsing the root.
    static var subcommandTypes: [any ParsableCommand.Type] {
        [
            DemoCommand.self, RunCommand.self, ReplayCommand.self, AttachCommand.self, ExportCommand.self,
            ReportCommand.self, DiffCommand.self,
        ]
    }

    @OptionGroup var common: CommonOptions

    /// No subcommand: the default demo (demos/build.json) live, recorded unless `--no-record`.
    func run() throws {
        let status = try ScenarioRunner.runDefault(common)
        if status != 0 { throw ExitCode(status) }
    }
}

/// Parses and runs, mapping every outcome to taskview's exit statuses: usage errors are 2
/// (never the argument parser's 64), `--help` is 0, a command's `ExitCode` passes through.
/// A subcommand parses its own arguments (`taskview replay LOG --speed 4`): parsed through
/// the root, the root's own options would take `--speed` and the rest from it. Options
/// before the subcommand's name are its own too (`LeadingOptions`).
@main
enum Main {
    static func main() {
        Signals.unblockAll()
        Signals.tuneMalloc()
        let args = JobsArgument.normalize(Array(CommandLine.arguments.dropFirst()))
        let status: Int32
        let names = Set(TaskView.subcommandTypes.map { $0._commandName })
        if let (first, rest) = LeadingOptions.split(args, subcommands: names),
            let sub = TaskView.subcommandTypes.first(where: { $0._commandName == first })
        {
            status = run(sub, rest, name: "taskview \(first)")
        } else {
            status = run(TaskView.self, args, name: "taskview")
        }
        fflushStdout()
        exit(status)
    }

    /// Parses `args` as `command` (named `name` in usage texts) and runs it; the exit status.
    static func run(_ command: any ParsableCommand.Type, _ args: [String], name: String) -> Int32 {
        do {
            var parsed = try command.parseAsRoot(args)
            try parsed.run()
            return 0
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            let message = UsageText.fix(
                command.fullMessage(for: error), commandName: command._commandName,
                fullName: name)
            if command.exitCode(for: error) == .success {
                if !message.isEmpty { print(message) }
                return 0
            }
            if !message.isEmpty { writeStderr(message + "\n") }
            return 2
        }
    }

    static func fflushStdout() { fflush(nil) }
}

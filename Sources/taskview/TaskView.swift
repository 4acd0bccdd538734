import ArgumentParser
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

            Exit status: 0 the root succeeded, 1 it failed, 130 it was cancelled (also by \
            quitting), 2 bad input, 3 a replayed log whose root never settled.
            """,
        subcommands: TaskView.subcommandTypes
    )

    @OptionGroup var common: CommonOptions

    func run() throws {
        let status = try DefaultRun.run(common)
        if status != 0 { throw ExitCode(status) }
    }
}

/// Parses and runs, mapping every outcome to taskview's exit statuses: usage errors are 2
/// (never the argument parser's 64), `--help` is 0, a command's `ExitCode` passes through.
@main
enum Main {
    static func main() {
        Signals.unblockAll()
        let status: Int32
        do {
            var command = try TaskView.parseAsRoot()
            try command.run()
            status = 0
        } catch let code as ExitCode {
            status = code.rawValue
        } catch {
            let parserCode = TaskView.exitCode(for: error)
            let message = TaskView.fullMessage(for: error)
            if parserCode == .success {
                if !message.isEmpty { print(message) }
                status = 0
            } else {
                if !message.isEmpty { writeStderr(message + "\n") }
                status = 2
            }
        }
        fflushStdout()
        exit(status)
    }

    static func writeStderr(_ text: String) {
        var t = text
        t.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    static func fflushStdout() { fflush(nil) }
}

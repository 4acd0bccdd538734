import ArgumentParser
import TaskViewCore

/// `taskview run FILE`: a user's scenario file.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario file live.",
        discussion: "FILE is strict JSON describing the root node (see demos/*.json). Errors are reported as FILE:LINE:COLUMN: message, exit status 2, and nothing runs.")

    @Argument(help: ArgumentHelp("The scenario file.", valueName: "FILE"))
    var file: String

    @OptionGroup var common: CommonOptions

    func run() throws {
        let scenario = try ScenarioRunner.load { () throws(ScenarioError) in try ScenarioLoader.file(file) }
        let status = try ScenarioRunner.run(scenario, common: common)
        if status != 0 { throw ExitCode(status) }
    }
}

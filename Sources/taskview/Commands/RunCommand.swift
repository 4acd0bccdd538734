import ArgumentParser
import TaskViewCore
import TaskViewIO

/// `taskview run FILE`: a user's scenario file.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario file live.",
        discussion:
            "FILE is strict JSON describing the root node (see demos/*.json). Errors are reported as FILE:LINE:COLUMN: message, exit status 2, and nothing runs."
    )

    @Argument(help: ArgumentHelp("The scenario file.", valueName: "FILE"))
    var file: String

    @OptionGroup var common: CommonOptions

    func run() throws {
        let scenario = try ScenarioRunner.load(
            { () throws(ScenarioError) in try ScenarioLoader.file(file) },
            explain: { Self.wrongKind(file) })
        let status = try ScenarioRunner.run(scenario, common: common)
        if status != 0 { throw ExitCode(status) }
    }

    /// What to say instead of a JSON error when FILE is not a scenario at all.
    static func wrongKind(_ file: String) -> String? {
        let name = Sanitizer.clean(file)
        switch FileSniff.kind(of: file) {
        case .replayLog: return "\(name) is a replay log, not a scenario file: replay it with `taskview replay \(name)`"
        case .notJSONObject:
            return
                "\(name) is not a scenario file (a scenario is a JSON object describing the root node; see demos/*.json)"
        case .scenario, .unknown: return nil
        }
    }
}

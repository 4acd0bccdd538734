import ArgumentParser
import TaskViewCore
import TaskViewIO

/// `taskview demo [NAME]`, `taskview demo --list`.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a shipped demo scenario live (default: build).",
        discussion:
            "Demos: \(ScenarioLoader.demoNames.joined(separator: ", ")). They are embedded in the binary; demos/*.json shows their source."
    )

    @Flag(name: .long, help: "List the demos, one line each, and exit.")
    var list = false

    @Argument(help: ArgumentHelp("The demo to run.", valueName: "NAME"))
    var name: String?

    @OptionGroup var common: CommonOptions

    func run() throws {
        if list {
            for (name, description) in ScenarioLoader.demoList() {
                print("\(name)  \(Sanitizer.clean(description))")
            }
            return
        }
        let demo = name ?? ScenarioLoader.defaultDemo
        let scenario = try ScenarioRunner.load { () throws(ScenarioError) in try ScenarioLoader.demo(demo) }
        let status = try ScenarioRunner.run(scenario, common: common)
        if status != 0 { throw ExitCode(status) }
    }
}

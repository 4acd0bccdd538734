import ArgumentParser

/// The subcommands `taskview` knows (`Commands/*.swift`).
extension TaskView {
    static var subcommandTypes: [any ParsableCommand.Type] {
        [DemoCommand.self, RunCommand.self, ReplayCommand.self, AttachCommand.self, ExportCommand.self]
    }
}

/// `taskview` without a subcommand: the default demo, live (`LiveRunner`), recorded unless
/// `--no-record`.
enum DefaultRun {
    static func run(_ common: CommonOptions) throws -> Int32 {
        try ScenarioRunner.runDefault(common)   // the `build` demo (demos/build.json)
    }
}

import ArgumentParser

// Placeholders until the scenarios helper's Commands/*.swift land: delete each one when the
// real command exists (a duplicate type name is the reminder).

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Run a demo scenario live (not yet available).")
    @OptionGroup var common: CommonOptions
    func run() throws { throw ValidationError("taskview demo is not available yet") }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run a scenario file (not yet available).")
    @OptionGroup var common: CommonOptions
    func run() throws { throw ValidationError("taskview run is not available yet") }
}

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", abstract: "Replay a recorded session (not yet available).")
    func run() throws { throw ValidationError("taskview replay is not available yet") }
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Export a log (not yet available).")
    func run() throws { throw ValidationError("taskview export is not available yet") }
}

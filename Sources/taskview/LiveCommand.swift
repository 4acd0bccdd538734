import ArgumentParser
import TaskGraph
import TaskViewTerminal
#if canImport(Glibc)
import Glibc
#endif

/// The subcommands `taskview` knows. The scenarios helper's `Commands/*.swift` replace
/// the placeholders in `LiveCommandPlaceholders.swift` as they land.
extension TaskView {
    static var subcommandTypes: [any ParsableCommand.Type] {
        [DemoCommand.self, RunCommand.self, ReplayCommand.self, ExportCommand.self]
    }
}

/// `taskview` without a subcommand: the default demo, live, recorded unless `--no-record`.
enum DefaultRun {
    static func run(_ common: CommonOptions) throws -> Int32 {
        try ScenarioRunner.runDefault(common)   // the `build` demo (demos/build.json)
    }

    /// Runs a built graph live with recording: the common path of the default demo.
    /// Returns the exit status; prints `Log written to PATH` to stderr.
    static func runRecorded(graph: Graph, clock: VirtualClock, root: NodeID, title: String,
                            scenario: String, common: CommonOptions, logPath: String?,
                            start: @escaping () -> Void) throws -> Int32 {
        var recorder: GraphRecorder?
        if let logPath {
            do {
                recorder = try GraphRecorder(graph: graph, path: logPath, scenario: scenario, seed: common.seed)
            } catch {
                throw ValidationError("cannot write the replay log: \(error)")
            }
        }
        let keys = recorder
        let status = LiveRunner.run(graph: graph, clock: clock, root: root, title: title,
                                    options: common.liveOptions(logPath: logPath, onKey: { key, node in
                                        keys?.recordKey(key, node: node)
                                    }), start: start)
        if let recorder {
            recorder.finish()
            Main.writeStderr("Log written to \(recorder.path)\n")
        }
        return status
    }
}

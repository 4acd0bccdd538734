import ArgumentParser
import TaskGraph
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

/// `--baseline LOG` and `--min-change PCT`: the run the Δ column (`d`), the detail pane and
/// the end-of-run report compare with (docs/taskview.md, "Comparing with another run").
struct BaselineOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Compare with the run in LOG (a replay log of the same scenario) instead of the previous run.",
            valueName: "LOG"))
    var baseline: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Least change the diff column (d) shows, in percent of the baseline's time (0-1000; default 10).",
            valueName: "PCT"))
    var minChange: Double = RunComparison.defaultMinChange

    func validate() throws {
        try DiffCommand.checkPercent(minChange, option: "--min-change")
    }

    /// The baseline `--baseline` names, when it is a log of scenario `file` (nil: any
    /// scenario, as for a replay of an unknown one); else a notice saying why none is used.
    func load(scenarioFile file: String?) -> (baseline: Baseline?, notice: String?) {
        guard let path = baseline else { return (nil, nil) }
        let name = Sanitizer.clean(path)
        let replay: ReplayLog
        do {
            replay = try LogReader.load(path: path, skipBadLines: true)
        } catch {
            return (nil, "no baseline: \(Sanitizer.clean(String(describing: error)))")
        }
        if let file {
            guard let other = replay.header.file else {
                return (nil, "no baseline: \(name) does not say which scenario it ran")
            }
            guard other == file else {
                return (
                    nil, "no baseline: \(name) is a log of \(Sanitizer.clean(other)), not of \(Sanitizer.clean(file))"
                )
            }
        }
        var tree = TreeModel()
        tree.absorb(replay.events)
        let logName = path.split(separator: "/").last.map(String.init) ?? path
        return (Baseline(record: RunRecord(tree: tree), name: logName, minChange: minChange), nil)
    }
}

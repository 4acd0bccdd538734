import ArgumentParser
import TaskViewCore

/// `--slow-factor`, `--slow-after`, `--silent-after`: the thresholds of a run's `slow` and
/// `silent` warnings (docs/taskview.md, "Warnings").
struct WarningOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Warn 'slow' when a step runs longer than X times its median duration in earlier runs (default 3).",
            valueName: "X"))
    var slowFactor: Double = 3

    @Option(
        name: .long,
        help: ArgumentHelp(
            "...and at least SECONDS longer than that median (default 10).", valueName: "SECONDS"))
    var slowAfter: Double = 10

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Warn 'silent' when a command shows no progress and no output for SECONDS (default: 5 times its usual longest gap, at least 30; 60 without history).",
            valueName: "SECONDS"))
    var silentAfter: Double?

    func validate() throws {
        guard slowFactor.isFinite, slowFactor >= 1, slowFactor <= 1000 else {
            throw ValidationError("--slow-factor must be a number from 1 to 1000 (got \(slowFactor))")
        }
        guard slowAfter.isFinite, slowAfter >= 0 else {
            throw ValidationError("--slow-after must be a number of seconds, 0 or more (got \(slowAfter))")
        }
        if let silentAfter, !(silentAfter.isFinite && silentAfter > 0) {
            throw ValidationError("--silent-after must be a number of seconds greater than 0 (got \(silentAfter))")
        }
    }

    var thresholds: WarningThresholds {
        WarningThresholds(slowFactor: slowFactor, slowAfter: slowAfter, silentAfter: silentAfter)
    }
}

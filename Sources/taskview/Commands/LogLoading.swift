import ArgumentParser
import TaskGraph
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

/// Loads a replay log for a command: a log that cannot be read is reported (sanitized) and
/// exits with status 2; notices such as "truncated after seq N" go to stderr.
func loadLogForCommand(_ path: String, skipBadLines: Bool, eventsOnly: Bool = false) throws -> ReplayLog {
    let replay: ReplayLog
    do {
        replay =
            eventsOnly
            ? try LogReader.loadEvents(path: path, skipBadLines: skipBadLines)
            : try LogReader.load(path: path, skipBadLines: skipBadLines)
    } catch {
        writeStderr("taskview: \(Sanitizer.clean(String(describing: error)))\n")
        if FileSniff.kind(of: path) == .scenario {
            writeStderr(
                "taskview: \(Sanitizer.clean(path)) is a scenario file, not a replay log: run it with `taskview run \(Sanitizer.clean(path))`\n"
            )
        }
        throw ExitCode(2)
    }
    for notice in replay.notices { writeStderr("taskview: \(Sanitizer.clean(notice))\n") }
    return replay
}

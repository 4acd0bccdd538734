import TaskViewCore

/// Reading a `RunHistory` from the scenario's history file.
extension RunHistory {
    /// The history of `file` (`Scenario.file`) among the runs recorded in `directory`: its
    /// history file only, never the logs. What cannot be read is skipped with one `notice`
    /// (never a failure).
    package static func load(file: String, directory: String, notice: (String) -> Void) -> RunHistory {
        RunHistory(entries: HistoryFile(scenarioFile: file, directory: directory).load(notice: notice))
    }
}

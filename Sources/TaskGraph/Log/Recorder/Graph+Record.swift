extension Graph {
    /// Records this graph to a replay log at `path` (docs/log-format.md): the header, a snapshot
    /// of what exists, then every event, until the returned observation's `cancel()`, which
    /// writes a final snapshot and the `end` line and closes the file. `producer` names the
    /// program in the header (default: the command line). For key events and header fields
    /// such as the scenario, create a `GraphRecorder` directly. The log is created with mode
    /// 0600 whatever the umask (it holds every output line); a failed write is reported by
    /// `recordingError`, never by stopping the program.
    public func record(to path: String, producer: String? = nil) throws -> any GraphObservation {
        try GraphRecorder(graph: self, path: path, producer: producer)
    }
}

extension GraphObservation {
    /// Ends the observation. For a recording (`Graph.record(to:)`), this is how to stop it:
    /// it writes the final snapshot and the `end` line and closes the file (the same as
    /// `cancel()`, which reads as "throw it away" but keeps the log too).
    public func finish() { cancel() }

    /// For a recording (`Graph.record(to:)`): why the log is not whole, nil when every line
    /// was written (or this is not a recording). A full disk does not stop the program: the
    /// recorder remembers the first failed write (or close) and writes nothing more, so ask
    /// after `finish()` before saying the log was written.
    public var recordingError: RecordingError? { (self as? GraphRecorder)?.writeError }
}

extension Graph {
    /// Records this graph to a replay log at `path` (docs/log-format.md): the header, a snapshot
    /// of what exists, then every event, until the returned observation's `cancel()`, which
    /// writes a final snapshot and the `end` line and closes the file. `producer` names the
    /// program in the header (default: the command line). For key events and header fields
    /// such as the scenario, create a `GraphRecorder` directly.
    public func record(to path: String, producer: String? = nil) throws -> any GraphObservation {
        try GraphRecorder(graph: self, path: path, producer: producer)
    }
}

extension GraphObservation {
    /// Ends the observation. For a recording (`Graph.record(to:)`), this is how to stop it:
    /// it writes the final snapshot and the `end` line and closes the file (the same as
    /// `cancel()`, which reads as "throw it away" but keeps the log too).
    public func finish() { cancel() }
}

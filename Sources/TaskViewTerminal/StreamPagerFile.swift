import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// What `o` pages for a node with log records: its kept output lines and records as the
/// detail pane shows them (at its `L` level), written to a private temporary file.
enum StreamPagerFile {
    /// The file's path, or nil when the node has no records or the file cannot be written.
    static func write(_ model: DashboardModel, node: NodeIndex) -> String? {
        let id = node.rawValue
        guard model.shown.logs[id] != nil, let ring = model.shown.detailStream(id, filter: model.view.logFilter)
        else { return nil }
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = base + "/taskview-stream-\(getpid())-\(id).txt"
        guard case .success(let f) = PrivateFile.stream(path) else { return nil }
        for line in ring.lines {
            fputs((line.stream == .stderr ? "! " : "  ") + Sanitizer.clean(line.text) + "\n", f)
        }
        fclose(f)
        return path
    }
}

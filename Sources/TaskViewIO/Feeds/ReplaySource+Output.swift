import TaskGraph
import TaskViewCore

extension ReplaySource {
    /// `o` in a replay: what the log recorded as `node`'s output, written once to a file in
    /// a temporary directory (removed when the source goes away).
    package func outputFile(node: NodeIndex, model: DashboardModel) -> String? {
        let node = node.rawValue
        if outputFiles == nil { outputFiles = try? CommandOutputFiles(directory: nil, limit: .max) }
        guard let files = outputFiles else { return nil }
        if !outputWritten.contains(node) {
            outputWritten.insert(node)
            var lines: [GraphEvent] = []
            for event in log.events {
                if case .output(let id, _, _) = event.change, id.rawValue == node { lines.append(event) }
                if lines.count >= 4096 {
                    files.record(lines)
                    lines.removeAll(keepingCapacity: true)
                }
            }
            files.record(lines)
        }
        return files.flushedPath(node: node)
    }
}

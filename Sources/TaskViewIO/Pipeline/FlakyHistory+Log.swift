import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// The flaky history of a recorded run, for `taskview report LOG`: the history file beside
/// the log that lists the run (its `run` is the log's file name), as it stood when that run
/// ended.
extension FlakyHistory {
    /// The history of the run recorded in `log` (its earlier runs, its own input keys and
    /// start); nil when no history file in the log's directory lists it. What cannot be
    /// read in that history is skipped with one `notice` (`HistoryFile.load`).
    package static func of(log: String, notice: (String) -> Void) -> FlakyHistory? {
        let slash = log.lastIndex(of: "/")
        let dir = slash.map { $0 == log.startIndex ? "/" : String(log[..<$0]) } ?? "."
        let name = slash.map { String(log[log.index(after: $0)...]) } ?? log
        guard let listing = opendir(dir + "/history") else { return nil }
        var files: [String] = []
        while let e = readdir(listing) {
            let file = withUnsafeBytes(of: e.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if file.hasSuffix(".jsonl") { files.append(dir + "/history/" + file) }
        }
        closedir(listing)
        for path in files.sorted() {
            guard let scenario = scenarioFile(of: path) else { continue }
            // Notices of the history that lists the run only, not of other scenarios'.
            var notices: [String] = []
            let entries = HistoryFile(scenarioFile: scenario, directory: dir).load(
                limit: 2 * HistoryFile.keep
            ) { notices.append($0) }
            guard let at = entries.lastIndex(where: { $0.run == name }) else { continue }
            notices.forEach(notice)
            let run = entries[at]
            var current: [String: InputKey] = [:]
            for n in run.nodes { current[n.path] = InputKey(n) }
            return FlakyHistory(entries: Array(entries[..<at]), current: current, start: run.start)
        }
        return nil
    }

    /// The scenario file a history file's first line names (nil: not a history file).
    private static func scenarioFile(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        guard n > 0 else { return nil }
        let line = bytes[0..<n].prefix { $0 != 10 }
        let head = Array(#"{"format":"taskview-history","version":1,"file":""#.utf8)
        let tail = Array(#""}"#.utf8)
        guard line.count >= head.count + tail.count, line.starts(with: head), line.suffix(2).elementsEqual(tail)
        else { return nil }
        let body = Array(line.dropFirst(head.count).dropLast(tail.count))
        return body.withUnsafeBufferPointer { try? JSONEscapes.decode($0) }
    }
}

import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reading a `RunHistory` from the replay logs of earlier runs.
extension RunHistory {
    /// The history of `file` (an absolute path) from the logs in `directory`, newest
    /// first. Logs that cannot be read are skipped with one `notice` (never a failure).
    package static func load(file: String, directory: String, notice: (String) -> Void) -> RunHistory {
        var candidates: [(mtime: Int, path: String)] = []
        guard let dir = opendir(directory) else { return RunHistory() }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".jsonl") else { continue }
            let path = directory + "/" + name
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            candidates.append((Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec), path))
        }
        closedir(dir)
        candidates.sort { $0.mtime > $1.mtime }
        var durations: [String: [Double]] = [:]
        var runs = 0
        var unreadable = 0
        for (_, path) in candidates where runs < Self.runs {
            guard headerFile(path) == file else { continue }
            guard let log = try? LogReader.load(path: path) else {
                unreadable += 1
                continue
            }
            var tree = TreeModel()
            tree.absorb(log.events)
            for (key, seconds) in succeededDurations(tree) { durations[key, default: []].append(seconds) }
            runs += 1
        }
        if unreadable > 0 {
            notice("ignoring \(unreadable) unreadable log\(unreadable == 1 ? "" : "s") of earlier runs in \(directory)")
        }
        var expected: [String: Double] = [:]
        for (key, list) in durations {
            let sorted = list.sorted()
            let mid = sorted.count / 2
            expected[key] = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        }
        return RunHistory(expected: expected, runCount: runs)
    }

    /// The header's `file` of the log at `path` (nil: none, or not a log).
    static func headerFile(_ path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var buf = [UInt8](repeating: 0, count: 64 << 10)
        let n = buf.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        guard let end = buf[..<n].firstIndex(of: 10) else { return nil }
        var stream = LogStream(name: path)
        guard let items = try? stream.feed(Array(buf[...end])) else { return nil }
        for case .header(let h) in items { return h.file }
        return nil
    }

}

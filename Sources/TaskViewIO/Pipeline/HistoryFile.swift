import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// A scenario's run history (docs/taskview.md, "Run history"): `DIR/history/HASH.jsonl` in
/// the directory runs record to, one per scenario file (HASH: FNV-1a 64 of its absolute
/// path). Line 1 names the file; each later line is one finished run (`HistoryEntry`),
/// newest last. A run's start reads only this file, never the logs; its end appends a line.
package struct HistoryFile: Sendable {
    /// Runs kept when the file is rewritten.
    package static let keep = 20
    /// A file larger than this is not read (and is rewritten at the next run's end).
    package static let maxFileBytes = 16 << 20

    /// The history file's path.
    package let path: String
    /// The scenario file it is for (`Scenario.file`).
    package let scenarioFile: String

    /// The history of `scenarioFile` among the runs recorded in `directory`.
    package init(scenarioFile: String, directory: String) {
        let hash = DefinitionKey.fnv1a64(scenarioFile)
        var hex = String(hash, radix: 16)
        hex = String(repeating: "0", count: 16 - hex.count) + hex
        path = directory + "/history/" + hex + ".jsonl"
        self.scenarioFile = scenarioFile
    }

    /// The first line: what the file is and which scenario file it is for.
    var header: String {
        var w = JSONWriter(capacity: 128)
        w.raw("{\"format\":\"taskview-history\",\"version\":1,\"file\":")
        w.string(scenarioFile)
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The newest `limit` readable entries, oldest first. Nothing (no file) is no history;
    /// a file too large or for another scenario, a line too long or not an entry, is
    /// skipped, and the first of them is told to `notice` once (`history FILE:LINE
    /// unreadable, skipped`).
    package func load(limit: Int = RunHistory.runs, notice: (String) -> Void) -> [HistoryEntry] {
        let lines: [ArraySlice<UInt8>]
        switch contents() {
        case .missing: return []
        case .unreadable(let why):
            notice("history \(path) \(why), skipped")
            return []
        case .lines(let l): lines = l
        }
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == header else {
            notice("history \(path):1 is not the history of \(scenarioFile), skipped")
            return []
        }
        var entries: [HistoryEntry] = []
        var bad: [Int] = []
        var index = lines.count - 1
        while index >= 1 && entries.count < limit {
            if let entry = HistoryEntry(line: Array(lines[index])) {
                entries.append(entry)
            } else {
                bad.append(index + 1)
            }
            index -= 1
        }
        if let line = bad.last {
            let more = bad.count > 1 ? " (and \(bad.count - 1) more line\(bad.count == 2 ? "" : "s"))" : ""
            notice("history \(path):\(line) unreadable, skipped\(more)")
        }
        return entries.reversed()
    }

    /// Adds `entry` as the newest run: appended, or, past 2 × `keep` runs or half of
    /// `maxFileBytes` (or over a file that is not this history), the file is rewritten with
    /// the newest `keep` (a temporary file renamed over it, so a reader never sees half).
    /// The directory is made mode 0700 and the file 0600, whatever the umask.
    package func append(_ entry: HistoryEntry) throws(HistoryError) {
        let dir = String(path[..<path.lastIndex(of: "/")!])
        do {
            try PrivateFile.makeDirectory(dir)
        } catch {
            throw HistoryError(path: dir, message: error.reason)
        }
        let line = Array((entry.line + "\n").utf8)
        var kept: [ArraySlice<UInt8>] = []
        if case .lines(let lines) = contents(), let first = lines.first,
            String(decoding: first, as: UTF8.self) == header
        {
            let size = lines.reduce(0) { $0 + $1.count + 1 }
            if lines.count - 1 < 2 * Self.keep && size + line.count <= Self.maxFileBytes / 2 {
                return try appendLine(line)
            }
            var budget = Self.maxFileBytes / 2 - line.count
            for l in lines.dropFirst().suffix(Self.keep - 1).reversed() {
                budget -= l.count + 1
                if budget < 0 { break }
                kept.append(l)
            }
            kept.reverse()
        }
        var bytes = Array((header + "\n").utf8)
        for l in kept {
            bytes += l
            bytes.append(10)
        }
        bytes += line
        try replace(with: bytes)
    }

    private func appendLine(_ line: [UInt8]) throws(HistoryError) {
        let fd: Int32
        switch PrivateFile.open(path, flags: O_APPEND | O_NOFOLLOW) {
        case .success(let opened): fd = opened
        case .failure(let e): throw HistoryError(path: path, message: e.reason)
        }
        defer { close(fd) }
        guard writeAll(line, to: fd) else { throw error(path) }
    }

    private func replace(with bytes: [UInt8]) throws(HistoryError) {
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw error(path) }
        let tmp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = fchmod(fd, 0o600) == 0 && writeAll(bytes, to: fd)
        let err = errno
        if close(fd) != 0 { ok = false }
        if ok && rename(tmp, path) == 0 { return }
        let failure = HistoryError(path: path, message: String(cString: strerror(ok ? errno : err)))
        unlink(tmp)
        throw failure
    }

    private func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                off += n
            }
            return true
        }
    }

    private func error(_ at: String) -> HistoryError {
        HistoryError(path: at, message: String(cString: strerror(errno)))
    }

    private enum Contents {
        case missing
        case unreadable(String)
        /// The lines without their `\n`; a last line without one (a write cut short) too.
        case lines([ArraySlice<UInt8>])
    }

    /// The file's lines, if it is a regular file of at most `maxFileBytes`.
    private func contents() -> Contents {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .missing : .unreadable("unreadable") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .unreadable("unreadable") }
        guard Int(st.st_size) <= Self.maxFileBytes else {
            return .unreadable("is larger than \(Self.maxFileBytes >> 20) MiB")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .unreadable("unreadable") }
            if n == 0 { break }
            count += n
        }
        guard count <= Self.maxFileBytes else { return .unreadable("is larger than \(Self.maxFileBytes >> 20) MiB") }
        // A plain loop: `split` walks the bytes through a closure (a third of a start that
        // reads ten one-megabyte lines).
        let ends: [Int] = bytes.withUnsafeBytes { p in
            var out: [Int] = []
            var start = 0
            while start < count {
                let end =
                    memchr(p.baseAddress! + start, 10, count - start).map { UnsafeRawPointer($0) - p.baseAddress! }
                    ?? count
                out.append(end)
                start = end + 1
            }
            return out
        }
        var lines: [ArraySlice<UInt8>] = []
        lines.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            lines.append(bytes[start..<end])
            start = end + 1
        }
        return .lines(lines)
    }
}

/// A history file that could not be written.
package struct HistoryError: Error, CustomStringConvertible, Sendable {
    package let path: String
    package let message: String
    package var description: String { "cannot write the run history \(path): \(message)" }
}

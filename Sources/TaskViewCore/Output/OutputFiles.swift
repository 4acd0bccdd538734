import TaskGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The whole output of each command, one file per node (`<directory>/<node id>.log`): stdout
/// and stderr interleaved as they came, stderr lines marked `! `. At most `limit` bytes per
/// command; past it, a last line says the output was cut. What `o` opens in the pager.
/// Used from the dashboard's thread only.
public final class OutputFiles {
    /// 64 MiB per command.
    public static let defaultLimit = 64 << 20

    public let directory: String
    /// Bytes kept per command.
    public let limit: Int
    /// A temporary directory, removed by `close()`.
    let temporary: Bool
    private var open: [Int: UnsafeMutablePointer<FILE>] = [:]
    private var written: [Int: Int] = [:]

    /// Keeps files under `directory` (created if missing), or in a new temporary directory
    /// (removed by `close()`) when nil. Throws when the directory cannot be made.
    public init(directory: String?, limit: Int = OutputFiles.defaultLimit) throws(OutputFilesError) {
        self.limit = max(0, limit)
        if let directory {
            if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw OutputFilesError(path: directory) }
            self.directory = directory
            temporary = false
        } else {
            let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
            var template = Array((base + "/taskview-output.XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw OutputFilesError(path: base) }
            self.directory = String(cString: made)
            temporary = true
        }
    }

    deinit { close() }

    /// The file of `node` (whether or not it has output yet).
    public func path(node: Int) -> String { directory + "/\(node).log" }

    /// Appends the output lines among `events`; closes a command's file once it settled.
    public func record(_ events: [GraphEvent]) {
        for e in events {
            switch e.change {
            case .output(let id, let stream, let text):
                write(id.rawValue, stream, text)
            case .stateChanged(let id, let state, _, _) where state == .completed || state == .cancelled:
                if let f = open.removeValue(forKey: id.rawValue) { fclose(f) }
            default:
                break
            }
        }
    }

    private func write(_ node: Int, _ stream: OutputStreamName, _ text: String) {
        let used = written[node] ?? 0
        guard used <= limit else { return }
        guard let f = file(node) else { return }
        let marked = stream == .stderr
        let size = text.utf8.count + (marked ? 3 : 1)
        if used + size > limit {
            written[node] = limit + 1
            _ = fputs("[taskview: output cut: more than \(limit) bytes (--output-limit)]\n", f)
            return
        }
        written[node] = used + size
        // No line is built: the mark, the text and the newline go to the buffer as they are.
        if marked { _ = fputs("! ", f) }
        _ = text.withCString { fputs($0, f) }
        _ = fputc(10, f)
    }

    private func file(_ node: Int) -> UnsafeMutablePointer<FILE>? {
        if let f = open[node] { return f }
        guard let f = fopen(path(node: node), written[node] == nil ? "w" : "a") else { return nil }
        if written[node] == nil { written[node] = 0 }
        open[node] = f
        return f
    }

    /// Writes out what is buffered and returns `node`'s file, nil when it printed nothing.
    public func flushedPath(node: Int) -> String? {
        if let f = open[node] { fflush(f) }
        return written[node] == nil ? nil : path(node: node)
    }

    /// Closes every file; a temporary directory is removed with its files.
    public func close() {
        for (_, f) in open { fclose(f) }
        open = [:]
        guard temporary else { return }
        for node in written.keys { unlink(path(node: node)) }
        written = [:]
        rmdir(directory)
    }
}

/// A directory for output files that cannot be made.
public struct OutputFilesError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "cannot create directory \(path) for the output files" }
}

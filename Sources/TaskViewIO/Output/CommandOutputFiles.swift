import TaskGraph
import TaskViewCore

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
/// Files are 0600 and a directory made here 0700 (`PrivateFile`): they hold every output
/// line. The first failed write is kept in `writeError` (the run reports it and exits 2).
/// Used from the dashboard's thread only.
package final class CommandOutputFiles {
    /// 64 MiB per command.
    package static let defaultLimit = 64 << 20

    package let directory: String
    /// Bytes kept per command.
    package let limit: Int
    /// A temporary directory, removed by `close()`.
    let temporary: Bool
    /// By node id: its open file (nil: not open), and the bytes written to it (-1: no file yet).
    /// Arrays, not dictionaries: a flood of output lines looks them up once per line.
    @exclusivity(unchecked) private var open: [UnsafeMutablePointer<FILE>?] = []
    @exclusivity(unchecked) private var written: [Int] = []
    /// The first file that could not be made or written, with the system's reason.
    package private(set) var writeError: PrivateFileError?

    /// Keeps files under `directory` (created if missing), or in a new temporary directory
    /// (removed by `close()`) when nil. Throws when the directory cannot be made.
    package init(directory: String?, limit: Int = CommandOutputFiles.defaultLimit) throws(CommandOutputFilesError) {
        self.limit = max(0, limit)
        if let directory {
            do {
                try PrivateFile.makeDirectory(directory)
            } catch {
                throw CommandOutputFilesError(path: directory, reason: error.reason)
            }
            self.directory = directory
            temporary = false
        } else {
            let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
            var template = Array((base + "/taskview-output.XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else {
                throw CommandOutputFilesError(path: base, reason: String(cString: strerror(errno)))
            }
            self.directory = String(cString: made)
            temporary = true
        }
    }

    deinit { close() }

    /// The file of `node` (whether or not it has output yet).
    package func path(node: Int) -> String { directory + "/\(node).log" }

    /// Appends the output lines among `events`; closes a command's file once it settled.
    package func record(_ events: [GraphEvent]) {
        // By index, not `for e in events`: an event is not copied (retained) to look at it.
        for k in events.indices {
            switch events[k].change {
            case .output(let id, let stream, let text):
                write(id.rawValue, stream, text)
            case .stateChanged(let id, let state, _, _) where state == .completed || state == .cancelled:
                let node = id.rawValue
                if node >= 0 && node < open.count, let f = open[node] {
                    closeFile(f, node: node)
                    open[node] = nil
                }
            default:
                break
            }
        }
    }

    private func write(_ node: Int, _ stream: OutputStreamName, _ text: String) {
        guard node >= 0 else { return }
        if node >= written.count { grow(to: node) }
        let used = max(written[node], 0)
        guard used <= limit else { return }
        guard let f = open[node] ?? file(node) else { return }
        let marked = stream == .stderr
        let size = text.utf8.count + (marked ? 3 : 1)
        if used + size > limit {
            written[node] = limit + 1
            _ = fputs("[taskview: output cut: more than \(limit) bytes (--output-limit)]\n", f)
            return
        }
        written[node] = used + size
        // No line is built: the mark, the text and the newline go to the buffer as they are
        // (unlocked: only this thread writes these files).
        if marked {
            _ = fputc_unlocked(0x21, f) // "! "
            _ = fputc_unlocked(0x20, f)
        }
        var text = text
        text.withUTF8 { _ = fwrite_unlocked($0.baseAddress, 1, $0.count, f) }
        _ = fputc_unlocked(10, f)
    }

    /// Makes room for node ids up to `node`.
    private func grow(to node: Int) {
        let count = max(node + 1, written.count * 2, 64)
        written += repeatElement(-1, count: count - written.count)
        open += repeatElement(nil, count: count - open.count)
    }

    /// Opens `node`'s file: new for its first line, appended to afterwards.
    private func file(_ node: Int) -> UnsafeMutablePointer<FILE>? {
        guard writeError == nil else { return nil } // a full disk: no retry per line
        switch PrivateFile.stream(path(node: node), append: written[node] >= 0) {
        case .failure(let e):
            writeError = e
            return nil
        case .success(let f):
            if written[node] < 0 { written[node] = 0 }
            open[node] = f
            return f
        }
    }

    /// Closes `node`'s file, keeping the first failure (a write error the buffer met, or
    /// the final flush's).
    private func closeFile(_ f: UnsafeMutablePointer<FILE>, node: Int) {
        let failed = ferror(f) != 0
        let closed = fclose(f) == 0
        if !closed || failed, writeError == nil {
            writeError = PrivateFileError(path: path(node: node), errno: closed ? EIO : errno)
        }
    }

    /// Writes out what is buffered and returns `node`'s file, nil when it printed nothing.
    package func flushedPath(node: Int) -> String? {
        guard node >= 0 && node < written.count && written[node] >= 0 else { return nil }
        if let f = open[node], fflush(f) != 0, writeError == nil {
            writeError = PrivateFileError(path: path(node: node), errno: errno)
        }
        return path(node: node)
    }

    /// Closes every file; a temporary directory is removed with its files.
    package func close() {
        for (node, f) in open.enumerated() { if let f { closeFile(f, node: node) } }
        open = []
        guard temporary else { return }
        for (node, used) in written.enumerated() where used >= 0 { unlink(path(node: node)) }
        written = []
        rmdir(directory)
    }
}

/// A directory for output files that cannot be made.
package struct CommandOutputFilesError: Error, CustomStringConvertible {
    package let path: String
    /// The system's reason.
    package let reason: String
    package var description: String { "cannot create directory \(path) for the output files: \(reason)" }
}

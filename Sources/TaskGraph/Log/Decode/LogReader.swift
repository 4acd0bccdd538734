#if canImport(Glibc)
    import Glibc
#endif

/// A log that cannot be replayed: the file, the line (when one is to blame) and the problem.
public struct LogLoadError: Error, CustomStringConvertible, Sendable {
    /// The file that cannot be replayed.
    public let path: String
    /// The 1-based line to blame, when there is one.
    public let line: Int?
    /// What is wrong.
    public let message: String

    /// A problem with `path` (at `line` when one is to blame).
    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `PATH: line N: MESSAGE`, or `PATH: MESSAGE` without a line.
    public var description: String {
        if let line { return "\(path): line \(line): \(message)" }
        return "\(path): \(message)"
    }
}

/// Reads replay logs (docs/log-format.md) without trusting them. Limits, all documented here:
/// - a line longer than `maxLineBytes` (4 MiB) is a bad line;
/// - node ids are 0 ... 16,777,215; weights are finite and >= 0; fractions 0...1;
///   times finite, >= 0 and never going backwards; seq strictly increasing (no gaps unless
///   bad lines are skipped);
/// - a parent must exist and may not make a cycle; nesting is at most `maxDepth` deep;
/// - names and texts are kept as they are (the dashboard and the headless printer
///   sanitize them before they reach the terminal).
/// A bad line is an error naming its line number unless `skipBadLines`, which counts it.
/// A final line without a newline is dropped (`truncatedAfterSeq`). Unknown fields and
/// unknown event kinds are ignored; an unknown major version is refused.
public enum LogReader {
    /// Longest line accepted.
    public static let maxLineBytes = 4 << 20
    /// Deepest nesting of nodes accepted.
    public static let maxDepth = 1_000_000
    /// The major version this reader understands.
    public static let version = 1

    /// Reads and validates the log at `path`.
    public static func load(path: String, skipBadLines: Bool = false) throws -> ReplayLog {
        let bytes = try readFile(path)
        return try parse(bytes, name: path, skipBadLines: skipBadLines)
    }

    /// `load` for a reader of the events alone (`taskview diff`): validated the same, but the
    /// final state is folded only if asked for later, which saves a pass over a long log.
    package static func loadEvents(path: String, skipBadLines: Bool = false) throws -> ReplayLog {
        let bytes = try readFile(path)
        return try parse(bytes, name: path, skipBadLines: skipBadLines, foldsFinalModel: false)
    }

    /// Validates a log held in memory; `name` is used in messages.
    public static func parse(_ bytes: [UInt8], name: String, skipBadLines: Bool = false) throws -> ReplayLog {
        try parse(bytes, name: name, skipBadLines: skipBadLines, foldsFinalModel: true)
    }

    static func parse(_ bytes: [UInt8], name: String, skipBadLines: Bool, foldsFinalModel: Bool) throws -> ReplayLog {
        try bytes.withUnsafeBufferPointer { buf in
            var parser = LogParser(name: name, skipBadLines: skipBadLines, foldsFinalModel: foldsFinalModel)
            try parser.run(buf)
            return parser.log
        }
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw LogLoadError(path: path, line: nil, message: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw LogLoadError(path: path, line: nil, message: String(cString: strerror(errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw LogLoadError(path: path, line: nil, message: "not a regular file")
        }
        // One byte more than the size, so reaching the end costs no growth; not zero-filled.
        func readSome(_ p: UnsafeMutableRawPointer, _ n: Int) throws -> Int {
            while true {
                let got = read(fd, p, n)
                if got >= 0 { return got }
                if errno != EINTR {
                    throw LogLoadError(path: path, line: nil, message: String(cString: strerror(errno)))
                }
            }
        }
        let capacity = Int(st.st_size) + 1
        var out = try [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
            count = 0
            while count < buf.count {
                let n = try readSome(buf.baseAddress! + count, buf.count - count)
                if n == 0 { return }
                count += n
            }
        }
        if out.count == capacity { // the file grew while being read
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = try chunk.withUnsafeMutableBytes { try readSome($0.baseAddress!, $0.count) }
                if n == 0 { break }
                out.append(contentsOf: chunk[0..<n])
            }
        }
        return out
    }
}

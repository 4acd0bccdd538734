import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// Finding programs that serve their graph (attach.md, default path rules) and asking each
/// who it is.
public enum AttachDiscovery {
    /// `$TASKGRAPH_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/taskgraph`, else `/tmp/taskgraph-<uid>`.
    public static func directory(environment: (String) -> String? = Self.env) -> String {
        if let d = environment("TASKGRAPH_SOCKET_DIR"), !d.isEmpty { return d }
        if let x = environment("XDG_RUNTIME_DIR"), !x.isEmpty { return x + "/taskgraph" }
        return "/tmp/taskgraph-\(getuid())"
    }

    /// The process environment.
    public static func env(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The `*.sock` files in `dir`, sorted by name (none when the directory is missing).
    public static func sockets(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".sock"), name.count > 5 else { continue }
            let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK else { continue }
            out.append(path)
        }
        return out.sorted()
    }

    /// What `attach --list` says about one program.
    public struct ProgramInfo: Sendable, Equatable {
        public var pid: Int?
        public var name: String
        public var socket: String
        /// The header's `created` (when the server started).
        public var started: String
        /// Nodes in the program's graph now, and how many of them execute.
        public var tasks: Int
        public var executing: Int

        /// `PID  NAME  SOCKET  started STARTED  N tasks (M executing)`, sanitized.
        public var line: String {
            let p = pid.map(String.init) ?? "?"
            return "\(p)  \(Sanitizer.clean(name))  \(Sanitizer.clean(socket))  started \(Sanitizer.clean(started))  "
                + "\(tasks) \(tasks == 1 ? "task" : "tasks") (\(executing) executing)"
        }
    }

    /// Connects, reads the header and the first snapshot (at most `timeout` seconds), and
    /// hangs up. nil for a stale socket (connect refused) or a stream that says nothing
    /// readable in time.
    public static func probe(_ path: String, timeout: Double = 5) -> ProgramInfo? {
        guard case .success(let fd) = UnixSocket.connect(path: path) else { return nil }
        defer { close(fd) }
        var stream = LogStream(name: path)
        var info = ProgramInfo(pid: nil, name: "", socket: path, started: "?", tasks: 0, executing: 0)
        var sawHeader = false
        let deadline = monotonic() + timeout
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buf.deallocate() }
        while true {
            let left = deadline - monotonic()
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(left * 1000) + 1)
            if r < 0 && errno == EINTR { continue }
            guard r > 0 else { return nil }
            let n = read(fd, buf.baseAddress, buf.count)
            guard n > 0 else { return nil }
            guard let items = try? stream.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n])) else { return nil }
            for item in items {
                switch item {
                case .header(let h):
                    sawHeader = true
                    info.pid = h.pid
                    info.name = h.name ?? h.producer ?? "?"
                    info.started = h.created ?? "?"
                case .snapshot(let nodes, _, _):
                    guard sawHeader else { return nil }
                    info.tasks = nodes.count
                    info.executing = nodes.reduce(0) { $0 + ($1.state == .executing ? 1 : 0) }
                    return info
                case .end:
                    return nil // stopping: not attachable any more
                default:
                    continue
                }
            }
        }
    }

    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

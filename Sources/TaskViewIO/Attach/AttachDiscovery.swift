import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Finding programs that serve their graph (docs/taskview.md, default path rules) and asking each
/// who it is, trusting only what the server itself would trust: a private directory of our
/// own and programs of our own user.
package enum AttachDiscovery {
    /// `$TASKGRAPH_SOCKET_DIR`, else `$XDG_RUNTIME_DIR/taskgraph`, else `/tmp/taskgraph-<uid>`.
    package static func directory(environment: (String) -> String? = Self.env) -> String {
        if let d = environment("TASKGRAPH_SOCKET_DIR"), !d.isEmpty { return d }
        if let x = environment("XDG_RUNTIME_DIR"), !x.isEmpty { return x + "/taskgraph" }
        return "/tmp/taskgraph-\(getuid())"
    }

    /// The process environment.
    package static func env(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The `*.sock` files in `dir`, sorted by name (none when the directory is missing).
    package static func sockets(in dir: String) -> [String] {
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
    package struct ProgramInfo: Sendable, Equatable {
        package var pid: Int?
        package var name: String
        package var socket: String
        /// The header's `created` (when the server started).
        package var started: String
        /// Nodes in the program's graph now, and how many of them execute.
        package var tasks: Int
        package var executing: Int
        /// False when the program answered but its snapshot (a big graph) had not all come
        /// within the probe's time: `tasks` and `executing` are unknown.
        package var counted = true

        /// `PID  NAME  SOCKET  started STARTED  N tasks (M executing)`, sanitized.
        package var line: String {
            let p = pid.map(String.init) ?? "?"
            let count =
                counted ? "\(tasks) \(tasks == 1 ? "task" : "tasks") (\(executing) executing)" : "tasks not counted"
            return "\(p)  \(Sanitizer.clean(name))  \(Sanitizer.clean(socket))  started \(Sanitizer.clean(started))  "
                + count
        }
    }

    /// What probing one socket found.
    package enum Probe: Sendable, Equatable {
        /// A program that answered: what `--list` says about it.
        case live(ProgramInfo)
        /// A program that did not answer in time (stopped, or its queue of connections is
        /// full): listed, never attached. `pid` from the socket's name.
        case notAnswering(socket: String, pid: Int?)
        /// Refused (another user's program, or the program refused us): the reason.
        case refused(socket: String, reason: String)
        /// Nobody listens (a stale socket), or the program is stopping: not listed.
        case gone(socket: String)

        /// `PID  ?  SOCKET  not answering` for a program that did not answer.
        package var line: String? {
            switch self {
            case .live(let info): info.line
            case .notAnswering(let socket, let pid):
                "\(pid.map(String.init) ?? "?")  ?  \(Sanitizer.clean(socket))  not answering"
            case .refused, .gone: nil
            }
        }
    }

    /// The pid in a socket's name (`PID.sock`, `PID-N.sock`), if it has one.
    package static func pid(inName path: String) -> Int? { AttachSocketName.pid(inName: path) }

    /// Why the socket directory must not be used (the server's own rules: owned
    /// by this user, closed to group and others, not a symlink, no parent anyone may write
    /// to without the sticky bit), or nil when it may (a missing directory holds nothing).
    package static func refusal(directory dir: String) -> String? {
        var st = stat()
        if lstat(dir, &st) != 0 && errno == ENOENT { return nil }
        do {
            try SocketPath.checkPrivateDirectory(dir)
            return nil
        } catch {
            return "not using \(dir): \(error.reason)"
        }
    }

    /// Connects to every socket at once, reads each header and first snapshot, and hangs
    /// up: each program has at most `timeout` seconds (all are probed in parallel), so a
    /// stopped program never holds up the others. Results in the order of `paths`.
    package static func probe(_ paths: [String], timeout: Double = 1) -> [Probe] {
        var results: [Probe?] = paths.map { _ in nil }
        var probes: [Pending] = []
        for (k, path) in paths.enumerated() {
            switch UnixSocket.startConnect(path: path) {
            case .failure(let f):
                results[k] =
                    f.isNotAnswering ? .notAnswering(socket: path, pid: pid(inName: path)) : .gone(socket: path)
            case .success(let (fd, inProgress)):
                if !inProgress, let f = UnixSocket.checkPeer(fd, path: path) {
                    close(fd)
                    results[k] = .refused(socket: path, reason: f.description)
                    continue
                }
                probes.append(Pending(index: k, fd: fd, connecting: inProgress, stream: LogStream(name: path)))
            }
        }
        let deadline = monotonic() + timeout
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buf.deallocate() }
        var fds: [pollfd] = []
        while !probes.isEmpty {
            let left = deadline - monotonic()
            guard left > 0 else { break }
            fds = probes.map { pollfd(fd: $0.fd, events: Int16($0.connecting ? POLLOUT : POLLIN), revents: 0) }
            let r = poll(&fds, nfds_t(fds.count), Int32(left * 1000) + 1)
            if r < 0 && errno == EINTR { continue }
            guard r > 0 else { break }
            var done: [Int] = []
            for (j, p) in fds.enumerated() where p.revents != 0 {
                let path = paths[probes[j].index]
                if probes[j].connecting {
                    probes[j].connecting = false
                    if let f = UnixSocket.connectError(p.fd, path: path) ?? UnixSocket.checkPeer(p.fd, path: path) {
                        results[probes[j].index] =
                            f.otherUID != nil ? .refused(socket: path, reason: f.description) : .gone(socket: path)
                        done.append(j)
                    }
                    continue
                }
                if let outcome = readProbe(buf, &probes[j], path: path) {
                    results[probes[j].index] = outcome
                    done.append(j)
                }
            }
            for j in done.reversed() {
                close(probes[j].fd)
                probes.remove(at: j)
            }
        }
        for p in probes {
            close(p.fd)
            if var info = p.info { // it answered; its snapshot is big
                info.counted = false
                results[p.index] = .live(info)
            } else {
                results[p.index] = .notAnswering(socket: paths[p.index], pid: pid(inName: paths[p.index]))
            }
        }
        return results.enumerated().map { $1 ?? .gone(socket: paths[$0]) }
    }

    /// A probe under way.
    private struct Pending {
        var index: Int
        var fd: Int32
        var connecting: Bool
        var stream: LogStream
        var info: ProgramInfo?
    }

    /// Reads what one probed program sent; the outcome once it is known.
    private static func readProbe(_ buf: UnsafeMutableRawBufferPointer, _ probe: inout Pending, path: String) -> Probe?
    {
        let n = read(probe.fd, buf.baseAddress, buf.count)
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return nil }
        guard n > 0, let items = try? probe.stream.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n])) else {
            return .gone(socket: path)
        }
        for item in items {
            switch item {
            case .header(let h):
                probe.info = ProgramInfo(
                    pid: h.pid, name: h.name ?? h.producer ?? "?", socket: path, started: h.created ?? "?", tasks: 0,
                    executing: 0)
            case .snapshot(let nodes, _, _):
                guard var i = probe.info else { return .gone(socket: path) }
                i.tasks = nodes.count
                i.executing = nodes.reduce(0) { $0 + ($1.state == .executing ? 1 : 0) }
                return .live(i)
            case .error(let message) where probe.info == nil:
                return .refused(socket: path, reason: "\(path): \(message)")
            case .end:
                return .gone(socket: path) // stopping: not attachable any more
            default:
                continue
            }
        }
        return nil
    }

    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

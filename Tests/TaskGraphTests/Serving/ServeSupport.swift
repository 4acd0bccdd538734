import Foundation
import TestSupport
import Testing

@testable import TaskGraph

/// A test viewer: a blocking Unix-socket client with line reading and timeouts.
final class TestViewer {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = try SocketPath.address(path)
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard r == 0 else {
            let e = String(cString: strerror(errno))
            Glibc.close(fd)
            throw ServeError(path: path, reason: "connect: \(e)")
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) { sendBytes(Array(text.utf8)) }

    func sendBytes(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Waits up to `timeout` seconds for readable bytes; false on timeout.
    private func fill(timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            closed = true
            return false
        }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next line (without newline), or nil on EOF or after `timeout` seconds.
    func line(timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 || closed { return nil }
            _ = fill(timeout: left)
        }
    }

    /// The next line as a JSON object.
    func object(timeout: Double = 30) -> [String: Any]? {
        guard let l = line(timeout: timeout) else { return nil }
        return ServeJSON.parse(l)
    }

    /// Reads objects until one satisfies `match` (returned) or nothing comes for `timeout`.
    func object(timeout: Double = 30, where match: ([String: Any]) -> Bool) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let o = object(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if match(o) { return o }
        }
        return nil
    }

    /// True when the server closes the connection within `timeout` (lines before are skipped).
    func waitClosed(timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            buffer.removeAll()
            if closed { return true }
            _ = fill(timeout: deadline.timeIntervalSinceNow)
            if closed { return true }
        }
        return false
    }

    /// Header and snapshot lines, returned as objects (the snapshot's parts).
    func readHeaderAndSnapshot() -> (header: [String: Any], snapshot: [[String: Any]])? {
        guard let h = object(), h["format"] as? String == "taskgraph-log" else { return nil }
        var parts: [[String: Any]] = []
        while let o = object() {
            guard o["ev"] as? String == "snapshot" else { return nil }
            parts.append(o)
            if o["part"] as? Int == o["parts"] as? Int { return (h, parts) }
        }
        return nil
    }
}

enum ServeJSON {
    static func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// A fresh private directory for sockets, removed by `cleanup()`.
struct SocketDir {
    let path: String
    init() {
        path = TemporaryDirectory("tg-serve").path
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// The usual setup of the serving tests: a graph whose one task (a `Reporter`) runs until
/// cancelled, served at `s.sock` in a fresh `SocketDir`. `stop()` undoes it all (server,
/// task, directory, in that order): call it in a `defer` right after.
struct ServedReporter {
    let dir: SocketDir
    let graph: Graph
    let reporter: Reporter
    let server: GraphServer

    init(name: String = "a") throws {
        dir = SocketDir()
        graph = Graph()
        reporter = Reporter(name: name, graph: graph)
        do {
            server = try graph.serve(at: dir.path + "/s.sock")
        } catch {
            reporter.task.cancel()
            dir.cleanup()
            throw error
        }
    }

    /// A new viewer that has read the header and the snapshot; with `receiveBuffer`, its
    /// socket's receive buffer is set to that many bytes first (a viewer that falls behind).
    func viewer(receiveBuffer: Int32? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> TestViewer {
        let viewer = try TestViewer(path: server.path)
        if var size = receiveBuffer {
            setsockopt(viewer.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        #expect(viewer.readHeaderAndSnapshot() != nil, sourceLocation: sourceLocation)
        return viewer
    }

    func stop() {
        server.stop()
        reporter.task.cancel()
        dir.cleanup()
    }
}

func fileMode(_ path: String) -> (type: mode_t, perm: mode_t)? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return (st.st_mode & S_IFMT, st.st_mode & 0o777)
}

extension Graph {
    var observerCount: Int { lock.withLock { observers.count } }
}

/// A leaf that runs until cancelled and reports whatever progress the test gives it.
final class Reporter: Sendable {
    private let report = Locked<(@Sendable (TaskProgress) -> Void)?>(nil)
    let task: GraphTask<Int, TestError>

    init(name: String, graph: Graph) {
        let box = report
        task = GraphTask<Int, TestError>(name: name, graph: graph) { _, _, _, progress in
            box.withLock { $0 = progress }
        }
        task.execute()
    }

    func progress(_ p: TaskProgress) { report.withLock { $0 }?(p) }
}

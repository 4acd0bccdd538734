import Synchronization
import TestSupport

@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// A one-connection stand-in for a serving program: a Unix socket in a fresh temp
/// directory; `send` writes lines to the viewer, `received` holds the viewer's lines.
final class FakeServer: Sendable {
    let dir: String
    let path: String
    private let listener: Int32
    private let conn = Mutex<Int32>(-1)
    private let lines = Mutex<[String]>([])

    init() {
        dir = TemporaryDirectory("taskview-attach").path
        path = dir + "/1.sock"
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        listen(listener, 4)
    }

    /// Accepts the viewer (after it connected) and starts reading its lines.
    func accept() {
        let fd = Glibc.accept(listener, nil, nil)
        conn.withLock { $0 = fd }
        let t = TestThread { [self] in
            var buf = [UInt8](repeating: 0, count: 4096)
            var pending: [UInt8] = []
            while true {
                let n = read(fd, &buf, buf.count)
                if n <= 0 { return }
                pending += buf[0..<n]
                while let nl = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeSubrange(...nl)
                    lines.withLock { $0.append(line) }
                }
            }
        }
        t.start()
    }

    var received: [String] { lines.withLock { $0 } }
    /// The viewer's lines but its request for the program's usage (`{"cmd":"usage"}`).
    var commands: [String] { received.filter { $0 != Self.usageRequest } }
    static let usageRequest = #"{"cmd":"usage"}"#

    func send(_ text: String) {
        let fd = conn.withLock { $0 }
        var t = text
        t.withUTF8 { _ = Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Drops the connection (without `end`: the program looks killed).
    func drop() {
        let fd = conn.withLock { $0 }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit {
        let fd = conn.withLock { $0 }
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        close(listener)
        unlink(path)
        rmdir(dir)
    }
}

/// A tiny detached thread (tests only).
final class TestThread: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    func start() {
        let box = Unmanaged.passRetained(self)
        var t = pthread_t()
        pthread_create(
            &t, nil,
            { raw in
                let me = Unmanaged<TestThread>.fromOpaque(raw!).takeRetainedValue()
                me.body()
                return nil
            }, box.toOpaque())
        pthread_detach(t)
    }
}

enum AttachLines {
    static func header(pid: Int = 4242, name: String = "demo") -> String {
        #"{"format":"taskgraph-log","version":1,"created":"2026-11-23T00:00:00Z","producer":"x","pid":"#
            + "\(pid),\"name\":\"\(name)\"}\n"
    }

    /// root(base) executing with children base+1 (executing) and base+2 (not executed).
    static func snapshot(seq: Int, t: Double = 1, base: Int = 0, extra: String = "") -> String {
        "{\"seq\":\(seq),\"t\":\(t),\"ev\":\"snapshot\",\"part\":1,\"parts\":1,\"nodes\":["
            + "{\"id\":\(base),\"kind\":\"concurrent\",\"name\":\"root\",\"weight\":1,\"state\":\"executing\",\"fraction\":0.25},"
            + "{\"id\":\(base + 1),\"kind\":\"task\",\"parent\":\(base),\"index\":0,\"name\":\"job a\",\"weight\":1,\"state\":\"executing\",\"fraction\":0.5},"
            + "{\"id\":\(base + 2),\"kind\":\"task\",\"parent\":\(base),\"index\":1,\"name\":\"job b\",\"weight\":1,\"state\":\"notExecuted\"}"
            + extra + "]}\n"
    }

    static func monotonic() -> Double { AttachDiscovery.monotonic() }
}

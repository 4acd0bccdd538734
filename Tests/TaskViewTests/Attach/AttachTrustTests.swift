import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 35: the viewer trusts what the server would trust (directory rules, peer uid), and
/// discovery never hangs on a program that does not answer.
@Suite(.serialized) struct AttachTrustTests {
    /// A fresh directory under /tmp (0700, ours), removed with its contents by `cleanup`.
    private func tempDir() -> String { TemporaryDirectory("taskview-trust").path }

    private func cleanup(_ dir: String) {
        _ = "rm -rf '\(dir)'".withCString { system($0) }
    }

    @Test func theViewerRefusesADirectoryTheServerWouldRefuse() {
        let tmp = tempDir()
        defer { cleanup(tmp) }
        #expect(AttachDiscovery.refusal(directory: tmp) == nil)
        #expect(AttachDiscovery.refusal(directory: tmp + "/missing") == nil) // holds nothing

        let open = tmp + "/open"
        mkdir(open, 0o700)
        chmod(open, 0o777)
        #expect(
            AttachDiscovery.refusal(directory: open)
                == "not using \(open): the directory is open to group or others (mode 0777); it must be 0700")

        let link = tmp + "/link"
        symlink(tmp, link)
        #expect(AttachDiscovery.refusal(directory: link) == "not using \(link): the directory is a symbolic link")

        let leaf = open + "/leaf"
        mkdir(leaf, 0o700)
        #expect(
            AttachDiscovery.refusal(directory: leaf)
                == "not using \(leaf): its parent \(open) may be written by anyone and has no sticky bit (mode 0777)")
        chmod(open, 0o1777)
        #expect(AttachDiscovery.refusal(directory: leaf) == nil)
    }

    @Test(.enabled(if: geteuid() == 0)) func theViewerRefusesADirectoryOfAnotherUser() {
        let tmp = tempDir()
        defer { cleanup(tmp) }
        let theirs = tmp + "/theirs"
        mkdir(theirs, 0o700)
        chown(theirs, 65534, 65534)
        #expect(
            AttachDiscovery.refusal(directory: theirs)
                == "not using \(theirs): the directory is owned by uid 65534, not by this user (uid 0)")
    }

    @Test func aProgramThatRefusesTheViewerIsShownRefusedNotKilled() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(#"{"ev":"error","message":"refused: the program runs as another user"}"# + "\n")
        server.drop()
        var tree = TreeModel()
        let deadline = AttachLines.monotonic() + 30
        while !session.allEnded && AttachLines.monotonic() < deadline {
            session.wait(seconds: 0.05)
            _ = session.pump(tree: &tree, now: 1)
        }
        #expect(session.statusLines == ["\(server.path): refused: the program runs as another user"])
        session.stop()
    }

    /// A listening socket nobody accepts on (a stopped program), its queue filled.
    private func stoppedProgram(at path: String) -> (listener: Int32, queued: [Int32]) {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = try! SocketPath.address(path)
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        listen(listener, 1)
        var queued: [Int32] = []
        for _ in 0..<64 { // until the queue is full (EAGAIN)
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if r != 0 {
                close(fd)
                break
            }
            queued.append(fd)
        }
        return (listener, queued)
    }

    @Test func discoveryListsAStoppedProgramNotAnsweringAndStillFindsTheHealthyOne() throws {
        let tmp = tempDir()
        defer { cleanup(tmp) }
        let healthy = try Graph().serve(at: tmp + "/100.sock", name: "healthy")
        defer { healthy.stop() }
        let stopped = stoppedProgram(at: tmp + "/200.sock")
        defer { for fd in [stopped.listener] + stopped.queued { close(fd) } }
        // A second stopped program whose queue has room: the connect succeeds, nothing comes.
        let quiet = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = try SocketPath.address(tmp + "/300-2.sock")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(quiet, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        listen(quiet, 8)
        defer { close(quiet) }

        let results = AttachDiscovery.probe(AttachDiscovery.sockets(in: tmp))
        #expect(results.count == 3)
        guard case .live(let info) = results.first else {
            Issue.record("the healthy program is not listed: \(results)")
            return
        }
        #expect(info.name == "healthy")
        #expect(info.pid == Int(getpid()))
        #expect(
            Array(results.dropFirst()) == [
                .notAnswering(socket: tmp + "/200.sock", pid: 200),
                .notAnswering(socket: tmp + "/300-2.sock", pid: 300),
            ])
        #expect(results[1].line == "200  ?  \(tmp)/200.sock  not answering")

        // Attaching to it fails at once, saying so, instead of waiting in connect().
        let error = #expect(throws: AttachError.self) { try AttachSession().attach(path: tmp + "/200.sock") }
        #expect(error?.message == "\(tmp)/200.sock: not answering (the program is stopped or busy)")
        #expect(error?.notAnswering == true)
    }

    @Test func aProgramWhoseSnapshotHasNotAllComeIsListedUncounted() throws {
        let server = FakeServer()
        let t = TestThread { [server] in
            server.accept()
            server.send(AttachLines.header(pid: 31, name: "big") + "{\"seq\":1,\"t\":1,\"ev\":\"snapshot\",\"part\":1")
        }
        t.start()
        let results = AttachDiscovery.probe([server.path], timeout: 0.5)
        #expect(results.count == 1)
        #expect(results.first?.line == "31  big  \(server.path)  started 2026-11-23T00:00:00Z  tasks not counted")
    }
}

import Foundation
import Testing

@testable import TaskGraph

/// `Graph.serve` (ServingAGraph; docs/log-format.md "Served streams"), against real Unix sockets
/// in temporary directories. Serialized: some tests set the socket environment variables.
@Suite(.serialized) struct ServeTests {
    // MARK: Paths and permissions

    @Test func defaultPathIsPidInSocketDirThenNumbered() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let dir = tmp.path + "/sockets"
        setenv("TASKGRAPH_SOCKET_DIR", dir, 1)
        defer { unsetenv("TASKGRAPH_SOCKET_DIR") }
        let first = try Graph().serve()
        let second = try Graph().serve()
        #expect(first.path == "\(dir)/\(getpid()).sock")
        #expect(second.path == "\(dir)/\(getpid())-2.sock")
        #expect(fileMode(dir)?.perm == 0o700)
        #expect(fileMode(first.path)?.type == S_IFSOCK)
        #expect(fileMode(first.path)?.perm == 0o600)
        first.stop()
        second.stop()
        #expect(fileMode(first.path) == nil)
        #expect(fileMode(second.path) == nil)
        // A freed name is used again.
        let third = try Graph().serve()
        #expect(third.path == "\(dir)/\(getpid()).sock")
        third.cancel()
        #expect(fileMode(third.path) == nil)
    }

    @Test func defaultPathFallsBackToXDGRuntimeDirThenTmp() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        unsetenv("TASKGRAPH_SOCKET_DIR")
        let savedXDG = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        defer {
            if let savedXDG { setenv("XDG_RUNTIME_DIR", savedXDG, 1) } else { unsetenv("XDG_RUNTIME_DIR") }
        }
        setenv("XDG_RUNTIME_DIR", tmp.path, 1)
        let xdg = try Graph().serve()
        #expect(xdg.path == "\(tmp.path)/taskgraph/\(getpid()).sock")
        #expect(fileMode(tmp.path + "/taskgraph")?.perm == 0o700)
        xdg.stop()
        unsetenv("XDG_RUNTIME_DIR")
        let fallback = try Graph().serve()
        #expect(fallback.path == "/tmp/taskgraph-\(geteuid())/\(getpid()).sock")
        #expect(fileMode("/tmp/taskgraph-\(geteuid())")?.perm == 0o700)
        fallback.stop()
        #expect(fileMode(fallback.path) == nil)
    }

    @Test func refusesADirectoryOpenToGroupOrOthers() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let dir = tmp.path + "/open"
        mkdir(dir, 0o700)
        chmod(dir, 0o770)
        setenv("TASKGRAPH_SOCKET_DIR", dir, 1)
        defer { unsetenv("TASKGRAPH_SOCKET_DIR") }
        let error = #expect(throws: ServeError.self) { try Graph().serve() }
        #expect(error?.description.contains(dir) == true)
        #expect(error?.description.contains("open to group or others") == true)
        #expect(fileMode("\(dir)/\(getpid()).sock") == nil)
    }

    @Test func refusesAPathThatIsNotAStaleSocketOrTooLong() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let file = tmp.path + "/plain"
        _ = FileManager.default.createFile(atPath: file, contents: Data("keep".utf8))
        let notSocket = #expect(throws: ServeError.self) { try Graph().serve(at: file) }
        #expect(notSocket?.description.contains(file) == true)
        #expect(notSocket?.description.contains("not a socket") == true)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep")

        let long = tmp.path + "/" + String(repeating: "x", count: 120) + ".sock"
        let tooLong = #expect(throws: ServeError.self) { try Graph().serve(at: long) }
        #expect(tooLong?.description.contains(long) == true)
        #expect(tooLong?.description.contains("108") == true)

        let live = try Graph().serve(at: tmp.path + "/live.sock")
        defer { live.stop() }
        let taken = #expect(throws: ServeError.self) { try Graph().serve(at: live.path) }
        #expect(taken?.description.contains("another server") == true)
    }

    @Test func replacesAStaleSocket() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let path = tmp.path + "/stale.sock"
        // A socket file whose server is gone (bound, then closed without unlinking).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = try SocketPath.address(path)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        close(fd)
        #expect(fileMode(path)?.type == S_IFSOCK)
        let server = try Graph().serve(at: path)
        let viewer = try TestViewer(path: path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        server.stop()
        #expect(fileMode(path) == nil)
    }

    // MARK: The stream

    @Test func viewerGetsHeaderSnapshotThenLiveEvents() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let (g, clock) = virtualGraph()
        let first = timed(1, after: 2, name: "first", graph: g)
        first.execute()
        clock.advance(by: 1)
        let server = try g.serve(at: tmp.path + "/s.sock", name: "demo")
        defer { server.stop() }
        #expect(g.observerCount == 0) // nothing attached while nobody watches
        let viewer = try TestViewer(path: server.path)
        let got = try #require(viewer.readHeaderAndSnapshot())
        #expect(got.header["format"] as? String == "taskgraph-log")
        #expect(got.header["version"] as? Int == 1)
        #expect(got.header["pid"] as? Int == Int(getpid()))
        #expect(got.header["name"] as? String == "demo")
        #expect(got.header["producer"] as? String == "demo")
        #expect(got.header["created"] is String)
        #expect(got.snapshot.count == 1)
        let snap = got.snapshot[0]
        #expect(snap["seq"] as? Int == 1)
        #expect(snap["t"] as? Double == 0)
        let nodes = try #require(snap["nodes"] as? [[String: Any]])
        #expect(nodes.count == 1)
        #expect(nodes.first?["id"] as? Int == first.id.rawValue)
        #expect(nodes.first?["name"] as? String == "first")
        #expect(nodes.first?["state"] as? String == "executing")
        #expect(g.observerCount == 1)

        clock.advance(by: 1) // `first` completes at t = 1 on the server's clock
        let done = try #require(viewer.object())
        #expect(done["seq"] as? Int == 2)
        #expect(done["ev"] as? String == "progress" || done["ev"] as? String == "state")
        var lines = [done]
        while lines.last?["ev"] as? String != "state", let o = viewer.object() { lines.append(o) }
        let state = try #require(lines.last)
        #expect(state["id"] as? Int == first.id.rawValue)
        #expect(state["state"] as? String == "completed")
        #expect(state["t"] as? Double == 1)
        #expect(lines.map { $0["seq"] as? Int } == Array(2..<(2 + lines.count)))

        let second = timed(2, after: 1, name: "second", graph: g)
        let add = try #require(viewer.object())
        #expect(add["ev"] as? String == "add")
        #expect(add["id"] as? Int == second.id.rawValue)
        #expect(add["name"] as? String == "second")
        #expect(add["kind"] as? String != nil)
        #expect(add["seq"] as? Int == 2 + lines.count)
    }

    @Test func anEventAfterAQuietSpellWakesTheServerEachTime() throws {
        // The server thread sleeps until an event's append wakes it: after each quiet spell
        // the next single event must still reach the viewer (a lost wake-up leaves it
        // asleep and the line never comes; 30 s is the viewer's limit).
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let server = try g.serve(at: tmp.path + "/quiet.sock")
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        for round in 0..<3 {
            usleep(200_000) // the server drains, finds nothing and sleeps
            let t = GraphTask<Int, Never>(name: "quiet \(round)", graph: g) { _, _ in }
            let add = try #require(viewer.object())
            #expect(add["ev"] as? String == "add")
            #expect(add["name"] as? String == "quiet \(round)")
            #expect(add["id"] as? Int == t.id.rawValue)
        }
    }

    @Test func theServerEncodesABacklogInSlicesAndHoldsBackForAViewerWithoutRoom() throws {
        // Encoding a whole backlog before writing filled a fast viewer's buffer and resynced
        // it: the server thread encodes at most a slice between writes, and the next slice
        // waits (briefly) while a viewer has no room. Checked with the server's lock held, so
        // its thread takes no part.
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let server = try g.serve(at: tmp.path + "/slices.sock")
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        let t = GraphTask<Int, Never>(name: "busy", graph: g) { _, _, _ in }
        t.execute()
        server.lock.withLock {
            #expect(server.pumpLocked() == false) // everything so far
            let c = try! #require(server.connections.first)
            let before = c.pendingEvents
            for i in 1...1000 { t.report(TaskProgress(Double(i) / 1001)) }
            #expect(server.pumpLocked(limit: 100) == true)
            #expect(c.pendingEvents == before + 100)
            #expect(server.pumpLocked(limit: 10_000) == false)
            #expect(c.pendingEvents == before + 1000)
            #expect(server.hasRoomLocked())
            let bytes = c.eventBytes
            c.eventBytes = GraphServer.bufferBytes / 4 // a viewer that has not read
            #expect(!server.hasRoomLocked())
            c.overflowed = true // it overflowed: it no longer counts
            #expect(server.hasRoomLocked())
            c.overflowed = false
            c.eventBytes = bytes
        }
        // The viewer then gets all of it, in order.
        var progress = 0
        while progress < 1000, let line = viewer.object() {
            if line["ev"] as? String == "progress" { progress += 1 }
            #expect(line["ev"] as? String != "resync")
        }
        #expect(progress == 1000)
    }

    @Test func observerIsDetachedWhenTheLastViewerLeaves() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let server = try g.serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        var a: TestViewer? = try TestViewer(path: server.path)
        var b: TestViewer? = try TestViewer(path: server.path)
        #expect(a?.readHeaderAndSnapshot() != nil)
        #expect(b?.readHeaderAndSnapshot() != nil)
        #expect(g.observerCount == 1) // one observer for every viewer
        a = nil
        #expect(await eventuallyAsync { server.lock.withLock { server.connections.count } == 1 })
        #expect(g.observerCount == 1)
        b = nil
        #expect(await eventuallyAsync { g.observerCount == 0 })
        // A new viewer attaches again and sees what happened meanwhile.
        let task = forever(name: "later", graph: g).execute()
        let c = try TestViewer(path: server.path)
        let nodes = c.readHeaderAndSnapshot()?.snapshot.first?["nodes"] as? [[String: Any]]
        #expect(nodes?.first?["id"] as? Int == task.id.rawValue)
        task.cancel()
        _ = (a, b)
    }

    @Test func stopSendsFinalSnapshotAndEndThenCloses() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let (g, clock) = virtualGraph()
        let server = try g.serve(at: tmp.path + "/s.sock")
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        timed(1, after: 1, name: "job", graph: g).execute()
        clock.advance(by: 1)
        server.stop()
        #expect(fileMode(server.path) == nil)
        var rest: [[String: Any]] = []
        while let o = viewer.object(timeout: 30) { rest.append(o) }
        #expect(viewer.closed)
        let kinds = rest.map { $0["ev"] as? String ?? "?" }
        #expect(kinds.suffix(2) == ["snapshot", "end"])
        let summary = rest.last?["summary"] as? [String: Any]
        #expect(summary?["succeeded"] as? Int == 1)
        #expect(summary?["outcome"] as? String == "succeeded")
        let seqs = rest.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(2..<(2 + rest.count)))
        #expect(g.observerCount == 0)
    }

    // MARK: Commands

    @Test func cancelCommandCancelsWithSourceAttach() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let a = forever(name: "a", graph: g)
        let b = forever(name: "b", graph: g)
        let both = GraphTask.concurrent([a, b], name: "both").execute()
        let server = try g.serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        viewer.send("{\"cmd\":\"cancel\",\"id\":\(a.id.rawValue)}\n")
        let cancel = viewer.object { $0["ev"] as? String == "cancel" && $0["id"] as? Int == a.id.rawValue }
        #expect(cancel?["source"] as? String == "attach")
        let state = viewer.object { $0["ev"] as? String == "state" && $0["id"] as? Int == a.id.rawValue }
        #expect(state?["state"] as? String == "cancelled")
        #expect(await eventuallyAsync { a.state == .cancelled && both.state == .cancelled })
    }

    @Test func cancelIsRefusedWhenNotAllowed() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let a = forever(name: "a", graph: g).execute()
        let server = try g.serve(at: tmp.path + "/s.sock", allowCancel: false)
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        viewer.send("{\"cmd\":\"cancel\",\"id\":\(a.id.rawValue)}\n")
        let error = try #require(viewer.object())
        #expect(error["ev"] as? String == "error")
        #expect((error["message"] as? String)?.contains("not allowed") == true)
        #expect(error["seq"] as? Int == 2)
        #expect(a.state == .executing)
        a.cancel()
    }

    @Test func badCommandsGetAnErrorLineAndTheConnectionStays() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let a = forever(name: "a", graph: g).execute()
        let server = try g.serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        let bad = [
            "{}", "[]", "42", "\"cancel\"", "null",
            "{\"cmd\":\"pause\"}", "{\"cmd\":7,\"id\":0}", "{\"cmd\":\"cancel\"}",
            "{\"cmd\":\"cancel\",\"id\":\"0\"}", "{\"cmd\":\"cancel\",\"id\":-1}",
            "{\"cmd\":\"cancel\",\"id\":1e300}", "{\"cmd\":\"cancel\",\"id\":1180591620717411303424}",
            "{\"cmd\":\"cancel\",\"id\":0.5}", "{\"cmd\":\"cancel\",\"id\":99999}",
            String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
        ]
        for line in bad { viewer.send(line + "\n") }
        for line in bad {
            let o = viewer.object()
            #expect(o?["ev"] as? String == "error", "\(line.prefix(40))")
            #expect((o?["message"] as? String)?.isEmpty == false)
        }
        #expect(a.state == .executing)
        viewer.send("{\"id\":\(a.id.rawValue),\"cmd\":\"cancel\"}\r\n")
        #expect(viewer.object { $0["ev"] as? String == "cancel" }?["source"] as? String == "attach")
    }

    @Test func overlongLineOrNonJSONClosesOnlyThatConnection() throws {
        let served = try ServedReporter()
        defer { served.stop() }
        let (r, server) = (served.reporter, served.server)
        let good = try served.viewer()

        let long = try TestViewer(path: server.path)
        #expect(long.readHeaderAndSnapshot() != nil)
        long.send("{\"cmd\":\"" + String(repeating: "x", count: 70 * 1024)) // no newline yet
        #expect(long.waitClosed())

        let longLine = try TestViewer(path: server.path)
        #expect(longLine.readHeaderAndSnapshot() != nil)
        longLine.send(String(repeating: " ", count: 65 * 1024) + "{}\n")
        #expect(longLine.waitClosed())

        let binary = try TestViewer(path: server.path)
        #expect(binary.readHeaderAndSnapshot() != nil)
        binary.sendBytes([0xFF, 0xFE, 0x80, 0x7B, 0x0A])
        #expect(binary.object()?["ev"] as? String == "error")
        #expect(binary.waitClosed())

        let text = try TestViewer(path: server.path)
        #expect(text.readHeaderAndSnapshot() != nil)
        text.send("hello\n")
        #expect(text.waitClosed())

        // The first viewer is still served.
        r.progress(TaskProgress(0.5, info: "half"))
        let p = good.object { $0["ev"] as? String == "progress" }
        #expect(p?["info"] as? String == "half")
        #expect(!good.closed)
    }

    @Test func seventeenthViewerIsRefused() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let server = try Graph().serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        var viewers: [TestViewer] = []
        for _ in 0..<GraphServer.maxViewers {
            let v = try TestViewer(path: server.path)
            #expect(v.readHeaderAndSnapshot() != nil)
            viewers.append(v)
        }
        let extra = try TestViewer(path: server.path)
        let refusal = try #require(extra.object())
        #expect(refusal["ev"] as? String == "error")
        #expect((refusal["message"] as? String)?.contains("16") == true)
        #expect(extra.waitClosed())
        viewers.removeLast()
        #expect(
            await eventuallyAsync { server.lock.withLock { server.connections.count } == GraphServer.maxViewers - 1 })
        let again = try TestViewer(path: server.path)
        #expect(again.readHeaderAndSnapshot() != nil)
    }

    @Test func viewerThatClosedItsInputStillGetsEvents() throws {
        let served = try ServedReporter()
        defer { served.stop() }
        let r = served.reporter
        let viewer = try served.viewer()
        shutdown(viewer.fd, Int32(SHUT_WR)) // as `nc -U PATH < /dev/null` does
        usleep(50_000)
        r.progress(TaskProgress(0.25, info: "still watching"))
        #expect(viewer.object { $0["ev"] as? String == "progress" }?["info"] as? String == "still watching")
    }

    @Test func stopFromACancelHandlerOnTheServerThreadDoesNotHang() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let box = Locked<GraphServer?>(nil)
        let a = forever(name: "a", graph: g).onCancel { box.withLock { $0 }?.stop() }.execute()
        let server = try g.serve(at: tmp.path + "/s.sock")
        box.withLock { $0 = server }
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
        viewer.send("{\"cmd\":\"cancel\",\"id\":\(a.id.rawValue)}\n")
        #expect(viewer.object { $0["ev"] as? String == "end" } != nil)
        #expect(viewer.waitClosed())
        #expect(await eventuallyAsync { fileMode(server.path) == nil })
        #expect(a.state == .cancelled)
    }

    // MARK: Other users (need root to play another user; skipped otherwise)

    @Test(.enabled(if: geteuid() == 0)) func refusesADirectoryOwnedBySomeoneElse() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let dir = tmp.path + "/theirs"
        mkdir(dir, 0o700)
        chown(dir, 65534, 65534)
        setenv("TASKGRAPH_SOCKET_DIR", dir, 1)
        defer { unsetenv("TASKGRAPH_SOCKET_DIR") }
        let error = #expect(throws: ServeError.self) { try Graph().serve() }
        #expect(error?.description.contains(dir) == true)
        #expect(error?.description.contains("owned by uid 65534") == true)
    }

    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func closesAConnectionFromAnotherUserAtOnce() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let server = try Graph().serve(at: tmp.path + "/s.sock")
        defer { server.stop() }
        // Open the file system's doors, so only the peer-uid check stands in the way.
        chmod(tmp.path, 0o777)
        chmod(server.path, 0o777)
        let script = """
            import os, socket
            os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX); s.settimeout(20); s.connect(\"\(server.path)\")
            data = b""
            while True:
                more = s.recv(4096)
                if not more: break
                data += more
            print(data.decode(), end="")
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        // Only the refusal line, then the close (no header, no graph).
        #expect(text == "{\"ev\":\"error\",\"message\":\"refused: the program runs as another user\"}\n")
        // The same user is still served.
        let viewer = try TestViewer(path: server.path)
        #expect(viewer.readHeaderAndSnapshot() != nil)
    }

    // MARK: A viewer that does not keep up

    @Test func stalledViewerIsResyncedAndTheProgramNeverWaits() throws {
        let served = try ServedReporter(name: "busy")
        defer { served.stop() }
        let (a, server) = (served.reporter, served.server)
        let viewer = try served.viewer(receiveBuffer: 4096)
        // ~40 MB of events while the viewer does not read: far over the 8 MiB buffer.
        let info = String(repeating: "i", count: 4000)
        let start = Date()
        for k in 0..<10_000 {
            a.progress(TaskProgress(Double(k) / 10_000, info: info))
        }
        #expect(Date().timeIntervalSince(start) < 120) // never blocked on the socket (a block would hang)
        let buffered = server.lock.withLock { server.connections.map { $0.pending.count + $0.inFlightEventBytes } }
        #expect(buffered.allSatisfy { $0 <= GraphServer.bufferBytes })
        a.progress(TaskProgress(0.99, info: "last"))

        // Reading again: the lines handed out before, then resync and a fresh snapshot. (When
        // the server thread ran late, as on a loaded machine, a buffer could overflow while
        // the socket still took bytes: that viewer was resynced then, before "last", and
        // overflows again later; each resync is followed by its snapshot.)
        var lastSeq = 1
        var gapless = true
        var skipped = 0
        var snapshot: [String: Any]?
        var afterResync = false
        while let o = viewer.object() {
            if let s = o["seq"] as? Int {
                if s != lastSeq + 1 { gapless = false }
                lastSeq = s
            }
            let ev = o["ev"] as? String
            if afterResync { #expect(ev == "snapshot", "a resync is followed by a snapshot") }
            afterResync = ev == "resync"
            if ev == "resync" { skipped += o["skipped"] as? Int ?? 0 }
            if ev == "snapshot", (o["nodes"] as? [[String: Any]])?.first?["info"] as? String == "last" {
                snapshot = o
                break
            }
        }
        #expect(skipped > 0)
        #expect(snapshot != nil)
        #expect(gapless)
        // Live again afterwards.
        a.progress(TaskProgress(1, info: "after"))
        #expect(viewer.object { $0["ev"] as? String == "progress" }?["info"] as? String == "after")
    }
}

import Foundation
import Testing

@testable import TaskGraph

/// Issue 35: the directory rules' parents, and the error line before a close.
extension ServeTests {
    @Test func refusesAPrivateDirectoryUnderAParentAnyoneMayWriteWithoutTheStickyBit() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let open = tmp.path + "/open"
        mkdir(open, 0o777)
        chmod(open, 0o777)
        let leaf = open + "/leaf"
        mkdir(leaf, 0o700)
        setenv("TASKGRAPH_SOCKET_DIR", leaf, 1)
        defer { unsetenv("TASKGRAPH_SOCKET_DIR") }
        let error = #expect(throws: ServeError.self) { try Graph().serve() }
        #expect(
            error?.description
                == "cannot serve at \(leaf): its parent \(open) may be written by anyone and has no sticky bit (mode 0777)"
        )
        #expect(fileMode("\(leaf)/\(getpid()).sock") == nil)

        // The same parent with the sticky bit (as /tmp has) is fine.
        chmod(open, 0o1777)
        let server = try Graph().serve()
        #expect(server.path == "\(leaf)/\(getpid()).sock")
        server.stop()
    }

    @Test func refusesASocketDirectoryThatIsASymbolicLink() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let real = tmp.path + "/real"
        mkdir(real, 0o700)
        let link = tmp.path + "/link"
        symlink(real, link)
        setenv("TASKGRAPH_SOCKET_DIR", link, 1)
        defer { unsetenv("TASKGRAPH_SOCKET_DIR") }
        let error = #expect(throws: ServeError.self) { try Graph().serve() }
        #expect(error?.description == "cannot serve at \(link): the directory is a symbolic link")
    }

    @Test func theNotJSONErrorLineComesAfterWhatTheViewerHadNotReadThenTheClose() async throws {
        let served = try ServedReporter()
        defer { served.stop() }
        let (g, r, server) = (served.graph, served.reporter, served.server)
        let viewer = try served.viewer()
        // About 2 MiB of events the viewer does not read: the socket fills, the server holds
        // the rest (unsent bytes).
        let info = String(repeating: "i", count: 1000)
        for k in 0..<2000 { r.progress(TaskProgress(Double(k) / 2000, info: info)) }
        g.flushObservers()
        #expect(await eventuallyAsync { server.lock.withLock { server.connections.first?.hasUnsent == true } })
        viewer.sendBytes([0xFF, 0xFE, 0x0A])
        // Everything that comes, until the server closes.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var p = pollfd(fd: viewer.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 30_000) > 0 else { break }
            let n = chunk.withUnsafeMutableBytes { recv(viewer.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        let lines = bytes.split(separator: 10).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count > 100)
        let last = try #require(lines.last.flatMap(ServeJSON.parse))
        #expect(last["ev"] as? String == "error")
        #expect(last["message"] as? String == "not UTF-8 JSON; closing the connection")
        #expect(bytes.last == 10)
        #expect(await eventuallyAsync { server.lock.withLock { server.connections.isEmpty } })
    }
}

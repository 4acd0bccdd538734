import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// An attached program's own CPU and memory (docs/taskview.md, "What each node costs"): the
/// serving program sends them about once a second to a viewer that asks; its row shows
/// CPU % and RSS in the `u` columns.
@Suite(.timeLimit(.minutes(2))) struct ProgramUsageTests {
    static let line = #"{"seq":2,"t":1,"ev":"usage","program":true,"cpu":1.5,"rss":1048576}"# + "\n"

    @Test func aProgramUsageLineIsAStreamItemNotAGraphEvent() throws {
        let items = try streamItems(AttachLines.header() + AttachLines.snapshot(seq: 1) + Self.line)
        guard case .programUsage(let u) = items.last else {
            Issue.record("\(items)")
            return
        }
        #expect(u == NodeUsage(cpu: 1.5, rss: 1_048_576))
        #expect(!items.contains { if case .events = $0 { true } else { false } })
    }

    @Test func hostileFiguresAreRefusedWithTheirLine() {
        for bad in [
            #""cpu":-1,"rss":1"#, #""cpu":1,"rss":-5"#, #""cpu":1"#, #""cpu":"x","rss":1"#, #""cpu":1e400,"rss":1"#,
        ] {
            let text =
                AttachLines.header() + AttachLines.snapshot(seq: 1)
                + #"{"seq":2,"t":1,"ev":"usage","program":true,"# + bad + "}\n"
            #expect(throws: StreamError.self, "\(bad)") { try streamItems(text) }
        }
    }

    @Test func theProgramRowShowsItsCPUPercentAndRSS() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: 7)
        try a.apply(AttachLines.header(pid: 7, name: "svc") + AttachLines.snapshot(seq: 1), program: p, tree: &tree)
        a.apply(.programUsage(NodeUsage(cpu: 2, rss: 64 << 20)), program: p, tree: &tree, now: 1)
        a.apply(.programUsage(NodeUsage(cpu: 2.5, rss: 80 << 20)), program: p, tree: &tree, now: 2)
        let row = tree.roots[0]
        #expect(tree.usages[row]?.usage == NodeUsage(cpu: 2.5, rss: 80 << 20))
        #expect(tree.usages[row]?.rate == 0.5)
        var m = DashboardModel(title: "attach")
        m.tree = tree
        m.view.showUsage = true
        let lines = frame(&m, 120, 8)
        let programRow = lines.first { $0.contains("svc") } ?? ""
        #expect(programRow.contains("50%"), "\(programRow)")
        #expect(programRow.contains("80M") || programRow.contains("80 M"), "\(programRow)")
    }

    /// Only to viewers that ask (`{"cmd":"usage"}`): a viewer written from the protocol's
    /// table alone gets the stream it expects.
    @Test func aServedProgramSendsItsOwnUsageToAViewerThatAsks() throws {
        let tmp = TemporaryDirectory("program-usage")
        defer { tmp.remove() }
        let graph = Graph()
        let server = try graph.serve(at: tmp.path + "/p.sock", name: "prog")
        defer { server.stop() }
        let fd = try UnixSocket.connect(path: tmp.path + "/p.sock").get()
        defer { close(fd) }
        #expect(UnixSocket.send(fd, "{\"cmd\":\"usage\"}\n"))
        var stream = LogStream(name: "p.sock")
        var buf = [UInt8](repeating: 0, count: 4096)
        var seen: [NodeUsage] = []
        // Two samples (the first at once, the next a second later); generous limit.
        var tv = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        while seen.count < 2 {
            let n = read(fd, &buf, buf.count)
            guard n > 0 else { break }
            for item in try stream.feed(Array(buf[..<n])) {
                if case .programUsage(let u) = item { seen.append(u) }
            }
        }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.rss > 1 << 20 && $0.cpu > 0 }, "\(seen)")
        #expect(seen.count < 2 || seen[1].cpu >= seen[0].cpu)
    }
}

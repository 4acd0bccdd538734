import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// A viewer that attaches after retention dropped nodes, or is resynced, counts the whole run
/// from the program's snapshot: its dropped roots per name and each node's dropped children.
@Suite struct AttachDroppedSummaryTests {
    static let fast = #"{"succeeded":9000,"failed":0,"cancelled":0,"p50":0.003,"p95":0.004,"max":0.009}"#
    static let slow = #"{"succeeded":1000,"failed":2,"cancelled":0}"#

    /// A snapshot of one running `server` scope whose dropped children are `children`, and
    /// the dropped roots `GET /fast` and `GET /slow`.
    static func snapshot(seq: Int, t: Int = 1, children: Int, fast: String = fast) -> String {
        "{\"seq\":\(seq),\"t\":\(t),\"ev\":\"snapshot\",\"part\":1,\"parts\":1,\"nodes\":["
            + "{\"id\":7,\"kind\":\"scope\",\"name\":\"server\",\"weight\":1,\"state\":\"executing\","
            + "\"dropped\":{\"succeeded\":\(children),\"failed\":0,\"cancelled\":0}}],"
            + "\"droppedRoots\":{\"GET /fast\":\(fast),\"GET /slow\":\(slow)}}\n"
    }

    @Test func aLateViewerCountsWhatWasDroppedBeforeItCame() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "/s/1.sock", pid: nil)
        try a.apply(AttachLines.header() + Self.snapshot(seq: 1, children: 40), program: p, tree: &tree)
        #expect(tree.droppedRoots["GET /fast"]?.succeeded == 9000)
        #expect(tree.droppedRoots["GET /slow"]?.failed == 2)
        let server = try #require(tree[tree.roots[0]].children.first.map { Int($0) })
        #expect(a.target(of: server)?.remote == 7)
        #expect(tree.droppedSummaries[server]?.succeeded == 40)
        // The header: 9,000 + 1,000 + 40 succeeded dropped nodes, 2 failed, the server running.
        #expect(tree.counts[DisplayState.succeeded.rawValue] == 10_040)
        #expect(tree.counts[DisplayState.failed.rawValue] == 2)
    }

    @Test func aResyncReplacesTheCountsAndCountsNothingTwice() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "/s/1.sock", pid: nil)
        let later = Self.fast.replacingOccurrences(of: "9000", with: "19000")
        let text =
            AttachLines.header() + Self.snapshot(seq: 1, children: 40)
            + #"{"seq":2,"t":2,"ev":"resync","skipped":500}"# + "\n"
            + Self.snapshot(seq: 3, t: 3, children: 90, fast: later)
        try a.apply(text, program: p, tree: &tree)
        #expect(tree.droppedRoots["GET /fast"]?.succeeded == 19_000)
        let server = try #require(tree[tree.roots[0]].children.first.map { Int($0) })
        #expect(tree.droppedSummaries[server]?.succeeded == 90)
        #expect(tree.counts[DisplayState.succeeded.rawValue] == 19_000 + 1_000 + 90)
    }

    /// Two replicas of one server, both with dropped `GET /fast` roots: the header counts
    /// both, and each replica's later summary replaces only its own.
    @Test func twoProgramsWithTheSameRootNamesAreBothCounted() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let one = a.addProgram(name: "/s/1.sock", pid: nil)
        let two = a.addProgram(name: "/s/2.sock", pid: nil)
        try a.apply(AttachLines.header(pid: 11) + Self.snapshot(seq: 1, children: 40), program: one, tree: &tree)
        try a.apply(AttachLines.header(pid: 12) + Self.snapshot(seq: 1, children: 60), program: two, tree: &tree)
        let secondFast = try #require(tree.droppedRoots.keys.first { $0.hasPrefix("GET /fast (") })
        #expect(secondFast.contains("pid 12"))
        #expect(tree.droppedRoots["GET /fast"]?.succeeded == 9000)
        #expect(tree.droppedRoots[secondFast]?.succeeded == 9000)
        #expect(tree.droppedRoots.count == 4)
        // 2 × (9,000 + 1,000) dropped roots, 40 + 60 dropped children; 2 × 2 failed.
        #expect(tree.counts[DisplayState.succeeded.rawValue] == 20_100)
        #expect(tree.counts[DisplayState.failed.rawValue] == 4)
        let later = ChildSummary(succeeded: 9500, failed: 0, cancelled: 0)
        let event = GraphEvent(sequence: 2, time: 2, change: .summary(id: nil, root: "GET /fast", summary: later))
        a.apply(.events([event]), program: two, tree: &tree, now: 0)
        #expect(tree.droppedRoots["GET /fast"]?.succeeded == 9000)
        #expect(tree.droppedRoots[secondFast]?.succeeded == 9500)
        #expect(tree.counts[DisplayState.succeeded.rawValue] == 20_600)
    }
}

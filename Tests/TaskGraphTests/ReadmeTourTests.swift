import Testing
import TaskGraph

/// The README's 20-line tour, compiled and run (on its own graph instead of `Graph.shared`).
@Suite struct ReadmeTourTests {
    struct Failed: Error {}

    @Test func theTourRunsAsDocumented() async throws {
        let g = Graph()
        let lines = Recorder<String>()
        let fetch = GraphTask<String, Failed>(name: "fetch", graph: g) { succeed, fail, progress in
            progress(TaskProgress(0.5, info: "Downloading"))          // nothing runs until execute()
            succeed("payload")
        }
        let parse = fetch.then(name: "parse") { text in .succeed(text.count, graph: g) }
        let build = GraphTask.sequential([
            GraphTask<Int, Failed>.succeed(1, graph: g).setWeight(1),
            GraphTask<Int, Failed>.succeed(2, graph: g).setWeight(3),
        ], name: "build")
        let all = GraphTask.concurrent([parse, build.mapResult { $0.reduce(0, +) }], name: "all")
        all.progress { p in lines.add("\(Int(p.fraction * 100))%") }
           .success { v in lines.add("done: \(v)") }
           .failure { e in lines.add("failed: \(e)") }
           .execute()
        all.cancel()                                                   // settled: does nothing
        let n = try await parse.value
        let snap = g.snapshot()
        #expect(n == 7)
        #expect(lines.all == ["50%", "100%", "done: [7, 3]"])
        #expect(snap.roots == [all.id])
        #expect(snap[all.id]?.state == .completed)
    }
}


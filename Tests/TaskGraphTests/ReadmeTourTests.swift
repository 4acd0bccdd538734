import Foundation
import TaskGraph
import TestSupport
import Testing

/// The README's 20-line tour, compiled and run (on its own graph instead of `Graph.shared`).
@Suite struct ReadmeTourTests {
    struct Failed: Error {}

    @Test func theTourRunsAsDocumented() async throws {
        let g = Graph()
        let lines = Recorder<String>()
        let fetch = GraphTask<String, Failed>(name: "fetch", graph: g) { succeed, fail, progress in
            progress(TaskProgress(0.5, info: "Downloading")) // nothing runs until execute()
            succeed("payload")
        }
        let parse = fetch.then(name: "fetch and parse") { text in
            .succeed(text.count, name: "parse", graph: g)
        }
        let build = GraphTask.sequential(
            [
                GraphTask<Int, Failed>.succeed(1, graph: g).setWeight(1),
                GraphTask<Int, Failed>.succeed(2, graph: g).setWeight(3),
            ], name: "build")
        let all = GraphTask.concurrent([parse, build.mapResult { $0.reduce(0, +) }], name: "all")
        all.progress { p in lines.add("\(Int(p.fraction * 100))%") }
            .success { v in lines.add("done: \(v)") }
            .failure { e in lines.add("failed: \(e)") }
            .execute()
        g.cancel(all.id, source: "keyboard") // settled: does nothing
        let n = try await parse.value
        let snap = g.snapshot()
        #expect(n == 7)
        #expect(lines.all == ["50%", "100%", "done: [7, 3]"])
        #expect(snap.roots == [all.id])
        #expect(snap[all.id]?.state == .completed)
        #expect(snap[parse.id]?.name == "fetch and parse")
        #expect(snap[parse.id]?.children.map { snap[$0]?.name } == ["fetch", "parse"])
    }

    enum Part: Sendable, Equatable {
        case size(Int)
        case name(String)
        case group([Part])
    }

    @Test func nestingGroupsOfDifferentTypesWithCombine() async throws {
        let g = Graph()
        let sizes = GraphTask.concurrent(
            [GraphTask<Int, Failed>.succeed(1, graph: g), .succeed(2, graph: g)], name: "sizes")
        let names = GraphTask.sequential([GraphTask<String, Failed>.succeed("a", graph: g)], name: "names")
        let report = GraphTask<Part, Failed>.concurrent(
            [
                sizes.mapResult { .group($0.map(Part.size)) },
                names.mapResult { .group($0.map(Part.name)) },
            ], name: "report", combine: { .group($0) })
        #expect(try await report.value == .group([.group([.size(1), .size(2)]), .group([.name("a")])]))
    }

    @Test func aPipelineNamedStageByStage() async throws {
        let g = Graph()
        let download = GraphTask<String, Failed>.succeed("file", name: "download", graph: g)
        let pipeline = download.then(name: "download+extract") { file in .succeed(file + "/", name: "extract", graph: g)
        }
        .then(name: "pipeline") { dir in .succeed(dir.count, name: "index", graph: g) }
        #expect(try await pipeline.value == 5)
        let snap = g.snapshot()
        func names(_ id: NodeID) -> [String] { snap[id]!.children.map { snap[$0]!.name } }
        #expect(snap[pipeline.id]?.name == "pipeline")
        #expect(names(pipeline.id) == ["download+extract", "index"])
        #expect(names(snap[pipeline.id]!.children[0]) == ["download", "extract"])
    }

    @Test func aRecordingStopsWithFinish() throws {
        let g = Graph()
        let tmp = TemporaryDirectory("taskgraph-readme")
        defer { tmp.remove() }
        let path = tmp.file("log.jsonl")
        defer { unlink(path) }
        let rec = try g.record(to: path, producer: "my-tool")
        GraphTask<Int, Failed>.succeed(1, graph: g).execute()
        rec.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        #expect(text.split(separator: "\n").last?.contains(#""ev":"end""#) == true)
    }
}

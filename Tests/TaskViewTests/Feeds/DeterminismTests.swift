import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a demo headless the way taskview does (recorder attached before the tasks exist,
/// `HeadlessRunner` printing), optionally cancelling `cancel` (a node name) at `at` seconds.
func runDemo(_ name: String, seed: UInt64, path: String, cancel: (name: String, at: Double)? = nil)
    throws -> (lines: [String], final: GraphSnapshot)
{
    let session = try ScenarioSession(
        scenario: try ScenarioLoader.demo(name), seed: seed, recordTo: path, producer: "test")
    var cancelled = false
    var lines: [String] = []
    _ = HeadlessRunner.run(
        graph: session.graph, clock: session.clock, root: session.rootID,
        interrupted: {
            guard let cancel, !cancelled, session.clock.now >= cancel.at else { return false }
            cancelled = true
            let snap = session.graph.snapshot()
            let id = snap.nodes.values.filter { $0.name == cancel.name }.map(\.id).min()!
            session.recorder?.recordKey("X", node: id)
            session.graph.cancel(id, source: ViewerCancelSource.keyboard)
            return false
        },
        print: { lines.append($0) }, start: { session.start() })
    let final = session.graph.snapshot()
    session.finishRecording()
    return (lines, final)
}

@Suite struct DeterminismTests {
    @Test(arguments: ["build", "pipeline", "flaky", "stress"])
    func sameSeedSameLogAndReplayPrintsTheSame(demo: String) throws {
        let a = temporaryLogPath("det-a")
        let b = temporaryLogPath("det-b")
        defer {
            unlink(a)
            unlink(b)
        }
        let runA = try runDemo(demo, seed: 7, path: a)
        _ = try runDemo(demo, seed: 7, path: b)
        let la = try readLines(a)
        let lb = try readLines(b)
        #expect(la.count > 10)
        #expect(la.dropFirst() == lb.dropFirst())
        #expect(la.contains { $0.contains("\"ev\":\"end\"") })
        let log = try LogReader.load(path: a)
        #expect(ReplaySource.headlessLines(log) == runA.lines)
        #expect(log.finalSnapshot.nodes == runA.final.nodes)
        #expect(log.finalSnapshot.roots == runA.final.roots)
        #expect(log.snapshot(afterEvents: log.eventCount).nodes == runA.final.nodes)
    }

    @Test func roundTripWithASubtreeCancelledMidRun() throws {
        let (run, log) = try demoLog("build", seed: 3, cancel: ("compile Renderer.swift", 13))
        #expect(run.lines.contains { $0.contains("compile Renderer.swift: cancelled (keyboard)") })
        #expect(run.lines.contains { $0.contains("link: succeeded") }) // allSettled absorbed it
        #expect(log.keys.map(\.key) == ["X"])
        #expect(log.finalSnapshot.nodes == run.final.nodes)
        #expect(ReplaySource.headlessLines(log) == run.lines)
    }

    @Test func seekingToRandomTimesMatchesPlayingFromTheStart() throws {
        let log = try demoLog("stress", seed: 1).log
        #expect(log.checkpoints.count > 2)
        var rng = SeededGenerator(seed: 11)
        var model = LogModel()
        var applied = 0
        var times = (0..<15).map { _ in Double(rng.next() >> 11) * 0x1p-53 * log.duration }
        times.sort()
        for t in times {
            let n = log.eventCount(atTime: t)
            while applied < n {
                model.apply(log.events[applied].change)
                applied += 1
            }
            #expect(log.snapshot(atTime: t).nodes == model.snapshot(sequence: UInt64(n)).nodes)
        }
    }
}

@Suite struct ExportTests {
    @Test func chromeTraceHasCompleteEventsPerLaneAndMarksFailures() throws {
        let log = try demoLog("flaky", seed: 0).log
        let text = String(decoding: ChromeTrace.export(log), as: UTF8.self)
        #expect(text.hasPrefix("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[{\"name\":"))
        #expect(
            text.contains(
                #"{"name":"slow query [cancelled]","cat":"task","ph":"X","ts":0,"dur":3000000,"pid":1,"tid":"#))
        #expect(text.contains(#""args":{"id":5,"state":"cancelled","cancelSource":"timeout","parent":6}}"#))
        #expect(text.contains(#""name":"audit [failed]""#))
        #expect(text.contains(#"{"name":"thread_name","ph":"M","pid":1,"tid":0,"args":{"name":"lane 0"}}"#))
        // Valid JSON by our strict parser.
        #expect(throws: Never.self) { try JSONParser.parse(ChromeTrace.export(log)) }
    }
}

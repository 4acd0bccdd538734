import Synchronization
import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

@Suite struct PlainModeTests {
    /// The build demo run headless, plain or not, on a fake real clock that `wait` moves.
    func run(plain: Bool, speed: Double = 1) throws -> (lines: [String], waited: Double) {
        let session = try ScenarioSession(scenario: try ScenarioLoader.demo("build"), seed: 3, recordTo: nil)
        let real = Mutex(0.0)
        let pacing = PlainPacing(
            speed: speed, wait: { s in real.withLock { $0 += s } }, realNow: { real.withLock { $0 } })
        var lines: [String] = []
        _ = HeadlessRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID, plain: plain ? pacing : nil,
            print: { lines.append($0) }, start: { session.start() })
        return (lines, real.withLock { $0 })
    }

    @Test func plainLinesAreTheHeadlessLinesPacedWithARunningLineEveryTenSeconds() throws {
        let headless = try run(plain: false)
        let plain = try run(plain: true)
        let running = plain.lines.filter { $0.contains("] running: ") }
        #expect(running.count >= 3)
        #expect(running[0].hasPrefix("[10.000] running: "))
        #expect(running[1].hasPrefix("[20.000] running: "))
        #expect(plain.lines.filter { !$0.contains("] running: ") } == headless.lines)
        // Paced: the fake real clock moved as far as the run took on the graph clock.
        let summary = headless.lines.first { $0.hasPrefix("Summary:") }!
        #expect(plain.waited >= 30)
        #expect(summary.contains("succeeded"))
        #expect(headless.waited == 0)
        // Twice the speed, half the real time.
        let fast = try run(plain: true, speed: 2)
        #expect(abs(fast.waited - plain.waited / 2) < 0.2)
    }

    @Test func theRunningLineNamesBusyLeavesThenCountsTheRest() {
        var s = EventScript()
        s.add(0, "root", kind: "concurrent")
        for i in 1...7 { s.add(i, "job \(i)", parent: 0) }
        s.start(0)
        for i in 1...7 { s.start(i) }
        s.succeed(2)
        let tree = model(s).tree
        #expect(PlainPacing.runningLine(tree, time: 10) == "[10.000] running: job 1, job 3, job 4 (+3)")
        #expect(PlainPacing.runningLine(TreeModel(), time: 10) == nil)
    }
}

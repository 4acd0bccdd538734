import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

@Suite struct HeadlessTests {
    @Test func oneLinePerStateChangeThenSummary() {
        var s = smallBuild()
        _ = s.at(4.25)
        s.cancel(4, source: "keyboard")
        s.cancel(0, source: "child")
        var printer = HeadlessPrinter()
        let lines = s.events.compactMap { printer.absorb($0) }
        #expect(
            lines == [
                "[0.000] #0 build: executing",
                "[0.000] #1 compile: executing",
                "[0.000] #2 a.c: executing",
                "[0.000] #3 b.c: executing",
                "[2.000] #2 a.c: succeeded",
                "[3.000] #3 b.c: failed: syntax error",
                "[3.000] #1 compile: succeeded",
                "[3.500] #4 link: executing",
                "[4.250] #4 link: cancelled (keyboard)",
                "[4.250] #0 build: cancelled (child)",
            ])
        #expect(
            printer.summary() == [
                "Summary: 2 succeeded, 1 failed, 2 cancelled, 0 skipped, 0 not executed, 0 executing",
                "Duration: 4.250s",
                "#0 build: cancelled (child)",
                "|- #1 compile: succeeded",
                "|  |- #2 a.c: succeeded",
                "|  `- #3 b.c: failed: syntax error",
                "`- #4 link: cancelled (keyboard)",
                "First failure: b.c at 3.000s: syntax error",
                "Critical path (3.750s of 4.250s):",
                "  b.c   3.000s",
                "  link  0.750s",
                "Slowest:",
                "  b.c   3.000s",
                "  a.c   2.000s",
                "  link  0.750s",
            ])
    }

    @Test func namesAndMessagesAreSanitized() {
        var s = EventScript()
        s.add(0, "bad\u{1B}[31mname")
        s.start(0)
        s.fail(0, "line1\nline2\u{1B}]0;x\u{7}")
        var printer = HeadlessPrinter()
        let lines = s.events.compactMap { printer.absorb($0) }
        #expect(lines == ["[0.000] #0 bad?[31mname: executing", "[0.000] #0 bad?[31mname: failed: line1 line2?]0;x?"])
    }

    @Test func skippedAndNotExecutedAreCounted() {
        var s = EventScript()
        s.add(0, "seq", kind: "sequential")
        s.add(1, "a", parent: 0)
        s.add(2, "b", parent: 0)
        s.add(3, "loose")
        s.start(0)
        s.start(1)
        _ = s.at(1.5)
        s.fail(1, "x")
        s.fail(0, "x")
        var printer = HeadlessPrinter()
        for e in s.events { _ = printer.absorb(e) }
        let summary = printer.summary(root: NodeID(0))
        #expect(summary[0] == "Summary: 0 succeeded, 2 failed, 0 cancelled, 1 skipped, 1 not executed, 0 executing")
        #expect(summary[1] == "Duration: 1.500s")
        #expect(summary.contains("#3 loose: not executed"))
        #expect(summary.contains("`- #2 b: skipped"))
    }

    @Test func runnerOnARealGraphEndsWithTheRootOutcome() {
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let a = GraphTask<Void, Never>.delay(seconds: 1, name: "a", graph: graph)
        let b = GraphTask<Void, Never>.delay(seconds: 2, name: "b", graph: graph)
        let root = GraphTask.sequential([a, b], name: "root", graph: graph)
        var lines: [String] = []
        let outcome = HeadlessRunner.run(
            graph: graph, clock: clock, root: root.id, print: { lines.append($0) },
            start: { root.execute() })
        #expect(outcome == .succeeded)
        #expect(outcome.exitStatus == 0)
        #expect(lines.first == "[0.000] #\(root.id.rawValue) root: executing")
        #expect(lines.contains("[3.000] #\(root.id.rawValue) root: succeeded"))
        #expect(lines.contains("Duration: 3.000s"))
    }

    @Test func runnerCancelsTheRootOnSignal() {
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let root = GraphTask<Void, Never>.delay(seconds: 5, name: "slow", graph: graph)
        var lines: [String] = []
        let outcome = HeadlessRunner.run(
            graph: graph, clock: clock, root: root.id, interrupted: { true },
            print: { lines.append($0) }, start: { root.execute() })
        #expect(outcome == .cancelled)
        #expect(outcome.exitStatus == 130)
        #expect(lines.contains("[0.000] #\(root.id.rawValue) slow: cancelled (signal)"))
    }

    @Test func sameEventsGiveTheSameBytes() {
        func run() -> [String] {
            let clock = VirtualClock()
            let graph = Graph(clock: clock)
            let tasks = (0..<5).map {
                GraphTask<Void, Never>.delay(seconds: Double($0) * 0.1, name: "t\($0)", graph: graph)
            }
            let root = GraphTask.allSettled(tasks, name: "all", graph: graph)
            var out: [String] = []
            _ = HeadlessRunner.run(
                graph: graph, clock: clock, root: root.id, print: { out.append($0) },
                start: { root.execute() })
            return out
        }
        let first = run()
        #expect(first == run())
        #expect(first.contains("[0.300] #3 t3: succeeded"))
    }
}

import Synchronization
import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// `taskview replay --plain` and `attach --plain`: the headless lines at the pace of the
/// recording (or live), with a `running:` line every 10 s, on a fake real clock that `wait`
/// moves.
@Suite struct PlainReplayTests {
    /// A fake real clock: `wait` moves it, `realNow` reads it.
    final class FakeRealClock: Sendable {
        let now = Mutex(0.0)
        func pacing(speed: Double) -> PlainPacing {
            PlainPacing(
                speed: speed, wait: { s in self.now.withLock { $0 += s } }, realNow: { self.now.withLock { $0 } })
        }
        var seconds: Double { now.withLock { $0 } }
    }

    /// The lines of a plain replay of `log` at `speed`, the real seconds it took and how it ended.
    func replay(_ log: ReplayLog, speed: Double = 1, stopAtReal: Double = .infinity)
        -> (lines: [String], real: Double, ending: PlainReplay.Ending)
    {
        let clock = FakeRealClock()
        var lines: [String] = []
        let ending = PlainReplay.run(
            log, pacing: clock.pacing(speed: speed), interrupted: { clock.seconds >= stopAtReal },
            print: { lines.append($0) })
        return (lines, clock.seconds, ending)
    }

    static func time(of line: String) -> Double? {
        guard line.hasPrefix("["), let end = line.firstIndex(of: "]") else { return nil }
        return Double(line[line.index(after: line.startIndex)..<end])
    }

    @Test func aPlainReplayPrintsTheHeadlessLinesAtTheRecordingsPaceWithRunningLines() throws {
        let log = try demoLog("build", seed: 3).log
        let played = replay(log)
        #expect(played.ending == .played)
        let running = played.lines.filter { $0.contains("] running: ") }
        let last = log.events.time(at: log.eventCount - 1)
        #expect(last > 30)
        // One every 10 s of recorded time while the run goes on (the build always has work).
        #expect(running.count == Int((last / 10).rounded(.up)) - 1)
        #expect(running[0].hasPrefix("[10.000] running: "))
        #expect(running[1].hasPrefix("[20.000] running: "))
        #expect(running[2].hasPrefix("[30.000] running: "))
        // Without them, exactly the headless replay.
        #expect(played.lines.filter { !$0.contains("] running: ") } == ReplaySource.headlessLines(log))
        // Each running line sits between the state lines of its moment and the later ones.
        for (i, line) in played.lines.enumerated() where line.contains("] running: ") {
            let t = Self.time(of: line)!
            #expect(Self.time(of: played.lines[i - 1]).map { $0 <= t } == true)
            #expect(Self.time(of: played.lines[i + 1]).map { $0 > t } == true)
        }
        // Paced: the real clock moved as far as the recording lasted.
        #expect(abs(played.real - last) < 0.001)
        // Four times the speed, a quarter of the real time, the same lines.
        let fast = replay(log, speed: 4)
        #expect(abs(fast.real - last / 4) < 0.001)
        #expect(fast.lines == played.lines)
    }

    @Test func aPlainReplayShowsWhatTheLivePlainRunShowed() throws {
        let path = temporaryLogPath("plain-live")
        defer { unlink(path) }
        let session = try ScenarioSession(
            scenario: try ScenarioLoader.demo("build"), seed: 5, recordTo: path, producer: "test")
        let clock = FakeRealClock()
        var live: [String] = []
        _ = HeadlessRunner.run(
            graph: session.graph, clock: session.clock, root: session.rootID, origin: session.origin,
            plain: clock.pacing(speed: 1), print: { live.append($0) }, start: { session.start() })
        session.finishRecording()
        let played = replay(try LogReader.load(path: path))
        #expect(live.contains { $0.hasPrefix("[10.000] running: ") })
        #expect(played.lines == live)
    }

    @Test func anInterruptedPlainReplayStopsAfterAWholeLineWithTheSummarySoFar() throws {
        let log = try demoLog("build", seed: 3).log
        let played = replay(log, speed: 2, stopAtReal: 6)
        #expect(played.ending == .interrupted(at: 12))
        let summary = played.lines.firstIndex { $0.hasPrefix("Summary: ") }!
        let shown = played.lines[..<summary]
        #expect(shown.contains("[10.000] running: " + running(log, at: 10)))
        #expect(shown.allSatisfy { Self.time(of: $0).map { $0 <= 12 } == true })
        #expect(
            Array(shown.filter { !$0.contains("] running: ") })
                == ReplaySource.headlessLines(log).prefix { Self.time(of: $0).map { $0 <= 12 } == true })
        #expect(played.lines[summary].hasSuffix(" executing") && !played.lines[summary].hasSuffix(" 0 executing"))
    }

    /// The names part of the running line at `time`, from the log's tree then.
    func running(_ log: ReplayLog, at time: Double) -> String {
        var tree = log.initialSnapshot.map(TreeModel.init(snapshot:)) ?? TreeModel()
        for e in log.events where e.time <= time { tree.absorb(e) }
        let line = PlainPacing.runningLine(tree, time: time)!
        return String(line[line.range(of: "running: ")!.upperBound...])
    }

    @Test func theRunningLineUnderAProgramRowWalksItsBusyBranchesInTreeOrder() {
        var s = EventScript()
        s.add(0, "program", kind: "program")
        s.add(1, "root", kind: "concurrent", parent: 0)
        s.add(2, "idle group", kind: "concurrent", parent: 1)
        s.add(3, "never", parent: 2)
        s.add(4, "busy group", kind: "concurrent", parent: 1)
        for i in 5...9 { s.add(i, "job \(i)", parent: 4) }
        s.add(10, "late", parent: 1)
        for i in [0, 1, 10, 4, 5, 6, 7, 8] { s.start(i) }
        s.succeed(6)
        let tree = model(s).tree
        #expect(PlainPacing.runningLine(tree, under: 0, time: 3) == "[3.000] running: job 5, job 7, job 8 (+1)")
        #expect(PlainPacing.runningLine(tree, under: 2, time: 3) == nil)
        #expect(PlainPacing.runningLine(tree, under: 99, time: 3) == nil)
    }
}

/// `attach --plain`: the live lines and, every 10 s after attaching, what each program is
/// running, stamped with the program's own clock.
@Suite struct PlainAttachTests {
    @Test func plainAttachSaysWhatIsRunningEveryTenSeconds() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(AttachLines.header(pid: 77, name: "svc") + AttachLines.snapshot(seq: 1, t: 1.5))
        let out = LinesBox()
        let printer = AttachHeadless(session: session, runningEvery: 10, print: { out.append($0) })
        var fake = 0.0
        var ended = false
        let deadline = AttachLines.monotonic() + 60
        let status = printer.run(
            interrupted: { AttachLines.monotonic() > deadline }, now: { fake },
            wait: { s in
                // The fake clock moves only once the snapshot is in, and not after `end` was
                // sent (real waits, polling with a generous limit, let the lines arrive).
                if out.lines.count < 2 || ended {
                    session.wait(seconds: 0.05)
                    return
                }
                fake += s
                if fake >= 25 {
                    ended = true
                    server.send(
                        #"{"seq":2,"t":27,"ev":"state","id":1,"state":"completed"}"# + "\n"
                            + #"{"seq":3,"t":28,"ev":"end","summary":{}}"# + "\n")
                }
            })
        #expect(status == 1) // the root had not settled at `end`
        #expect(
            out.lines == [
                "[1.500] #0 root: executing",
                "[1.500] #1 job a: executing",
                "[11.500] running: job a",
                "[21.500] running: job a",
                "[27.000] #1 job a: succeeded",
                "svc (pid 77): exited: unfinished",
                "Summary: 1 succeeded, 0 failed, 0 cancelled, 0 skipped, 1 not executed, 1 executing",
            ])
    }
}

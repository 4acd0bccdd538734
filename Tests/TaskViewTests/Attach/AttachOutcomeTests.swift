import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// Attach reports the programs' own outcome, as `run` reports its root's: the header, the
/// summary lines and the exit status (0 every root succeeded, 1 one failed or a program was
/// killed, 130 one was cancelled or the viewer was interrupted).
@Suite(.serialized) struct AttachOutcomeTests {
    /// Headless attach to one fake program that sends `lines` after its snapshot, then ends
    /// (`end`), or drops the connection when `kill`. Returns the status and the printed lines.
    func headless(_ lines: String, kill: Bool = false) throws -> (status: Int32, lines: [String]) {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(AttachLines.header(pid: 77, name: "svc") + AttachLines.snapshot(seq: 1, t: 1) + lines)
        if kill { server.drop() } else { server.send(#"{"seq":9,"t":4,"ev":"end","summary":{}}"# + "\n") }
        let out = LinesBox()
        let printer = AttachHeadless(session: session, print: { out.append($0) })
        let status = printer.run(interrupted: { false })
        return (status, out.lines)
    }

    /// The root (id 0) settles with this `state` line at t = 3.
    func rootSettles(seq: Int = 2, _ fields: String) -> String {
        "{\"seq\":\(seq),\"t\":2,\"ev\":\"state\",\"id\":1,\"state\":\"completed\"}\n"
            + "{\"seq\":\(seq + 1),\"t\":3,\"ev\":\"state\",\"id\":0," + fields + "}\n"
    }

    @Test func aSucceededProgramExitsZero() throws {
        let (status, lines) = try headless(rootSettles(#""state":"completed""#))
        #expect(status == 0)
        #expect(lines.contains("svc (pid 77): exited: succeeded"))
    }

    @Test func aCancelledRootExits130() throws {
        let (status, lines) = try headless(
            #"{"seq":2,"t":2,"ev":"cancel","id":0,"source":"api"}"# + "\n"
                + rootSettles(seq: 3, #""state":"cancelled""#))
        #expect(status == 130)
        #expect(lines.contains("svc (pid 77): exited: cancelled"))
    }

    @Test func aFailedRootExitsOne() throws {
        let (status, lines) = try headless(rootSettles(#""state":"completed","failed":true,"message":"boom""#))
        #expect(status == 1)
        #expect(lines.contains("svc (pid 77): exited: failed"))
    }

    @Test func aKilledProgramExitsOne() throws {
        let (status, lines) = try headless("", kill: true)
        #expect(status == 1)
        #expect(lines.contains("svc (pid 77): killed"))
    }

    @Test func aProgramThatExitsWithWorkUnsettledExitsOne() throws {
        let (status, lines) = try headless("")
        #expect(status == 1)
        #expect(lines.contains("svc (pid 77): exited: unfinished"))
    }

    @Test func theHeaderSaysWhichProgramEndedHow() throws {
        var a = AttachTree()
        var model = DashboardModel(title: "attach (2 programs)")
        let p = a.addProgram(name: "s", pid: nil)
        let q = a.addProgram(name: "t", pid: nil)
        try a.apply(
            AttachLines.header(pid: 1, name: "one") + AttachLines.snapshot(seq: 1)
                + rootSettles(#""state":"cancelled""#)
                + #"{"seq":4,"t":3,"ev":"end","summary":{}}"# + "\n", program: p, tree: &model.tree)
        try a.apply(
            AttachLines.header(pid: 2, name: "two") + AttachLines.snapshot(seq: 1)
                + rootSettles(#""state":"completed""#)
                + #"{"seq":4,"t":3,"ev":"end","summary":{}}"# + "\n", program: q, tree: &model.tree)
        #expect(a.outcome == .cancelled)
        let rows = model.tree.roots
        #expect(model.tree[rows[0]].display == .cancelled && model.tree[rows[0]].info == "exited: cancelled")
        #expect(model.tree[rows[1]].display == .succeeded && model.tree[rows[1]].info == "exited: succeeded")
        model.outcome = a.outcome
        model.outcomeDetail = a.programs.map { $0.label + " " + ($0.status.outcome?.word ?? "") }
            .joined(separator: ", ")
        let header = frame(&model, 140, 6)[0]
        #expect(header.contains("finished: cancelled (one (pid 1) cancelled, two (pid 2) succeeded)"), "\(header)")
        // A killed program makes the whole session a failure.
        a.closed(program: q, error: nil, tree: &model.tree, now: 1) // after end: stays exited
        #expect(a.outcome == .cancelled)
    }

    @Test func theDashboardSourceFinishesWithTheProgramsOutcome() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(
            AttachLines.header(pid: 9, name: "svc") + AttachLines.snapshot(seq: 1)
                + rootSettles(#""state":"completed","failed":true,"message":"boom""#)
                + #"{"seq":4,"t":3,"ev":"end","summary":{}}"# + "\n")
        let source = AttachSource(session: session, title: "attach")
        var model = DashboardModel(title: "")
        source.start(model: &model)
        let deadline = AttachLines.monotonic() + 30
        while model.outcome == nil && AttachLines.monotonic() < deadline {
            session.wait(seconds: 0.05)
            _ = source.tick(realElapsed: 1, model: &model)
        }
        #expect(model.outcome == .failed)
        #expect(model.outcomeDetail == "svc (pid 9) failed")
        source.finish(source: "quit", model: &model)
        #expect(source.exitStatus == 1)
    }
}

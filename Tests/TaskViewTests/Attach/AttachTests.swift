import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// The viewer side of attach: the stream reader, the merged tree with its id mapping, and
/// a session against a fake serving program.
@Suite struct AttachStreamTests {
    @Test func itemsArriveInOrderWhateverTheChunking() throws {
        let text =
            AttachLines.header() + AttachLines.snapshot(seq: 1)
            + #"{"seq":2,"t":1.5,"ev":"progress","id":1,"fraction":0.75}"# + "\n"
            + #"{"ev":"error","message":"cancel is not allowed"}"# + "\n"
            + #"{"seq":3,"t":1.5,"ev":"error","message":"with seq"}"# + "\n"
            + #"{"seq":5,"t":2,"ev":"resync","skipped":2}"# + "\n"
            + AttachLines.snapshot(seq: 6, t: 2)
            + #"{"seq":7,"t":2,"ev":"end","summary":{"succeeded":0}}"# + "\n"
        let bytes = Array(text.utf8)
        for chunk in [1, 7, 64, bytes.count] {
            var s = LogStream(name: "x")
            var kinds: [String] = []
            var at = 0
            while at < bytes.count {
                let end = min(bytes.count, at + chunk)
                for item in try s.feed(Array(bytes[at..<end])) {
                    switch item {
                    case .header(let h): kinds.append("header \(h.pid ?? -1) \(h.name ?? "")")
                    case .events(let e): kinds += e.map { _ in "event" }
                    case .snapshot(let nodes, let roots, _): kinds.append("snapshot \(nodes.count) \(roots)")
                    case .resync(let n): kinds.append("resync \(n)")
                    case .end: kinds.append("end")
                    case .error(let m): kinds.append("error \(m)")
                    case .programUsage(let u): kinds.append("usage \(u.cpu)")
                    }
                }
                at = end
            }
            #expect(
                kinds == [
                    "header 4242 demo", "snapshot 3 [0]", "event", "error cancel is not allowed",
                    "error with seq", "resync 2", "snapshot 3 [0]", "end",
                ], "chunk \(chunk)")
            #expect(s.sawEnd)
        }
    }

    @Test func seqMayStartOverAfterAResync() throws {
        let text =
            AttachLines.header() + AttachLines.snapshot(seq: 1)
            + #"{"seq":2,"t":1,"ev":"progress","id":1,"fraction":0.75}"# + "\n"
            + #"{"seq":9,"t":2,"ev":"resync","skipped":6}"# + "\n"
            + AttachLines.snapshot(seq: 1, t: 2)
            + #"{"seq":2,"t":2,"ev":"progress","id":1,"fraction":0.8}"# + "\n"
        #expect(try streamItems(text).count == 6)
    }

    @Test func aBadLineNamesItsLine() {
        let text =
            AttachLines.header() + AttachLines.snapshot(seq: 1)
            + #"{"seq":2,"t":1,"ev":"state","id":99,"state":"executing"}"# + "\n"
        #expect(throws: StreamError.self) { _ = try streamItems(text) }
        do { _ = try streamItems(text) } catch let e as StreamError {
            #expect(e.line == 3)
            #expect(e.message.contains("99"))
        } catch { Issue.record("\(error)") }
    }

    @Test func anEndlessLineIsRefused() {
        var s = LogStream(name: "x")
        #expect(throws: StreamError.self) {
            _ = try s.feed(Array(AttachLines.header().utf8))
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            for _ in 0..<5 { _ = try s.feed(chunk) }
        }
    }

    /// 2,000 hostile protocol lines after a valid start: a clear error or items, never a trap.
    @Test func fuzzProtocolLines() {
        var rng = SeededGenerator(seed: 77)
        var errors = 0
        for k in 0..<2_000 {
            var s = LogStream(name: "fuzz")
            var line = Array(HostileLogTests.hostileEvent(&rng, k).utf8)
            if k % 5 == 0 {
                line = Array(
                    (#"{"ev":"error","message":"# + HostileLogTests.values[k % HostileLogTests.values.count] + "}").utf8
                )
            }
            if k % 9 == 0 { line.insert(contentsOf: [0xFF, 0xFE], at: Int(rng.next() % UInt64(line.count))) }
            let bytes = Array((AttachLines.header() + AttachLines.snapshot(seq: 1)).utf8) + line + [10]
            do {
                _ = try s.feed(bytes)
            } catch let e as StreamError {
                errors += 1
                #expect(e.line == 3)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(errors > 1_000)
    }

    /// Hostile headers through the stream: errors on line 1.
    @Test func fuzzProtocolHeaders() {
        var rng = SeededGenerator(seed: 78)
        for k in 0..<1_000 {
            var s = LogStream(name: "fuzz")
            let bytes = Array(HostileLogTests.hostileHeader(&rng, k).utf8) + [10]
            do { _ = try s.feed(bytes) } catch let e as StreamError { #expect(e.line == 1) } catch {
                Issue.record("\(error)")
            }
        }
    }
}

@Suite struct AttachTreeTests {
    func names(_ tree: TreeModel, under id: Int) -> [String] {
        tree[id].children.map { tree[Int($0)].name }
    }

    @Test func twoProgramsWithTheSameIdsStaySeparate() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "/s/1.sock", pid: nil)
        let q = a.addProgram(name: "/s/2.sock", pid: nil)
        try a.apply(AttachLines.header(pid: 11, name: "alpha") + AttachLines.snapshot(seq: 1), program: p, tree: &tree)
        try a.apply(
            AttachLines.header(pid: 22, name: "beta\\u001b[2J") + AttachLines.snapshot(seq: 1), program: q, tree: &tree)
        let rows = tree.roots
        #expect(rows.map { tree[$0].name } == ["alpha (pid 11)", "beta?[2J (pid 22)"])
        #expect(rows.map { tree[$0].info } == ["connected", "connected"])
        let rootA = Int(tree[rows[0]].children[0])
        let rootB = Int(tree[rows[1]].children[0])
        #expect(rootA != rootB)
        #expect(names(tree, under: rootA) == ["job a", "job b"])
        // The same remote id 1 in each program maps back to its own program.
        let jobA = Int(tree[rootA].children[0])
        let jobB = Int(tree[rootB].children[0])
        #expect(a.target(of: jobA)?.program == p && a.target(of: jobA)?.remote == 1)
        #expect(a.target(of: jobB)?.program == q && a.target(of: jobB)?.remote == 1)
        #expect(a.target(of: rows[1])?.program == q && a.target(of: rows[1])?.remote == nil)
        #expect(a.liveRoots(of: q, in: tree) == [0])
        // An event for program q's node 1 changes only q's row.
        for item in try streamItems(
            AttachLines.header() + AttachLines.snapshot(seq: 1)
                + #"{"seq":2,"t":2,"ev":"state","id":1,"state":"completed"}"# + "\n"
        ).dropFirst(2) {
            a.apply(item, program: q, tree: &tree, now: 0)
        }
        #expect(tree[jobB].display == .succeeded)
        #expect(tree[jobA].display == .executing)
    }

    @Test func resyncReplacesTheSubtreeAndKeepsIds() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        let start =
            AttachLines.header() + AttachLines.snapshot(seq: 1)
            + #"{"seq":2,"t":1,"ev":"add","id":7,"kind":"task","name":"late","weight":1,"parent":0,"index":2}"# + "\n"
        try a.apply(start, program: p, tree: &tree)
        let row = tree.roots[0]
        let root = Int(tree[row].children[0])
        #expect(names(tree, under: root) == ["job a", "job b", "late"])
        let jobA = Int(tree[root].children[0])
        // Resync: node 7 is gone, job b executes now, a new node 9 appeared.
        let fresh =
            "{\"seq\":20,\"t\":5,\"ev\":\"snapshot\",\"part\":1,\"parts\":1,\"nodes\":["
            + #"{"id":0,"kind":"concurrent","name":"root","weight":1,"state":"executing"},"#
            + #"{"id":1,"kind":"task","parent":0,"index":0,"name":"job a","weight":1,"state":"completed"},"#
            + #"{"id":2,"kind":"task","parent":0,"index":1,"name":"job b","weight":1,"state":"executing"},"#
            + #"{"id":9,"kind":"task","parent":0,"index":2,"name":"newer","weight":1,"state":"notExecuted"}]}"# + "\n"
        let all = try streamItems(start + #"{"seq":19,"t":5,"ev":"resync","skipped":12}"# + "\n" + fresh)
        for item in all.dropFirst(3) { a.apply(item, program: p, tree: &tree, now: 0) }
        #expect(tree[row].info == "resynced (12 skipped)")
        #expect(names(tree, under: root) == ["job a", "job b", "newer"])
        #expect(Int(tree[root].children[0]) == jobA) // same local id: selection survives
        #expect(tree[jobA].display == .succeeded)
        #expect(tree.liveCount == 5) // row + 4 nodes: `late` is gone
    }

    @Test func endMeansExitedAndADropMeansKilled() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        let q = a.addProgram(name: "t", pid: nil)
        try a.apply(
            AttachLines.header(pid: 1, name: "one") + AttachLines.snapshot(seq: 1)
                + #"{"seq":2,"t":3,"ev":"end","summary":{}}"# + "\n", program: p, tree: &tree)
        try a.apply(AttachLines.header(pid: 2, name: "two") + AttachLines.snapshot(seq: 1), program: q, tree: &tree)
        #expect(!a.allOver)
        a.closed(program: p, error: nil, tree: &tree, now: 1) // after end: stays exited
        a.closed(program: q, error: nil, tree: &tree, now: 1)
        let rows = tree.roots
        #expect(tree[rows[0]].info == "exited: unfinished") // its root was still executing
        #expect(tree[rows[0]].display == .failed)
        #expect(tree[rows[1]].info == "killed")
        #expect(tree[rows[1]].display == .failed)
        #expect(a.allOver)
        // The subtrees stay on screen; what was executing stops counting time.
        #expect(tree[rows[0]].children.count == 1 && tree[rows[1]].children.count == 1)
        let job = Int(tree[Int(tree[rows[1]].children[0])].children[0])
        #expect(tree[job].state == .executing && tree[job].endedAt == 1)
    }

    @Test func hugeRemoteIdsCostNothing() throws {
        var a = AttachTree()
        var tree = TreeModel()
        let p = a.addProgram(name: "s", pid: nil)
        try a.apply(AttachLines.header() + AttachLines.snapshot(seq: 1, base: 16_777_200), program: p, tree: &tree)
        #expect(tree.liveCount == 4)
        #expect(tree.nodes.count <= 8) // local ids are dense
        let root = Int(tree[tree.roots[0]].children[0])
        #expect(a.target(of: root)?.remote == 16_777_200)
    }

    @Test func theConfirmationNamesTheProgramAndStopsAtItsRow() throws {
        var a = AttachTree()
        var model = DashboardModel(title: "attach")
        let p = a.addProgram(name: "s", pid: nil)
        try a.apply(
            AttachLines.header(pid: 5, name: "svc") + AttachLines.snapshot(seq: 1), program: p, tree: &model.tree)
        let row = model.tree.roots[0]
        let root = Int(model.tree[row].children[0])
        let job = Int(model.tree[root].children[0])
        let preview = CancelPreview(tree: model.tree, display: model.displayTree(), node: job)
        #expect(preview.prompt == "Cancel job a in svc (pid 5) (it is running)? [y/N]")
        let rootPreview = CancelPreview(tree: model.tree, display: model.displayTree(), node: root)
        #expect(rootPreview.prompt == "Cancel root in svc (pid 5) and its 1 running subtask? [y/N]")
        #expect(preview.ancestors == ["root"])
    }
}

@Suite(.serialized) struct AttachSessionTests {
    /// Pumps until `done` or 30 s (a loaded machine may deliver lines seconds late).
    func pump(
        _ s: AttachSession, _ tree: inout TreeModel, errors: inout [String],
        until done: (TreeModel, [String]) -> Bool
    ) -> Bool {
        let deadline = AttachLines.monotonic() + 30
        while AttachLines.monotonic() < deadline {
            errors += s.pump(tree: &tree, now: 0).errors
            if done(tree, errors) { return true }
            s.wait(seconds: 0.05)
        }
        return false
    }

    @Test func snapshotEventsCancelErrorsAndKilled() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(AttachLines.header(pid: 77, name: "svc") + AttachLines.snapshot(seq: 1, base: 100))
        var tree = TreeModel()
        var errors: [String] = []
        #expect(pump(session, &tree, errors: &errors) { t, _ in t.liveCount == 4 })
        let row = tree.roots[0]
        #expect(tree[row].name == "svc (pid 77)")
        let root = Int(tree[row].children[0])
        let job = Int(tree[root].children[0])
        // Events update the tree.
        server.send(#"{"seq":2,"t":2,"ev":"progress","id":101,"fraction":0.9}"# + "\n")
        #expect(pump(session, &tree, errors: &errors) { t, _ in t[job].fraction == 0.9 })
        // x on `job a` sends the program's own id.
        #expect(session.cancel(local: job, name: "job a", tree: tree) == "Cancel of job a sent to svc (pid 77)")
        let deadline = AttachLines.monotonic() + 30
        while server.commands.isEmpty && AttachLines.monotonic() < deadline { session.wait(seconds: 0.02) }
        #expect(server.commands == [#"{"cmd":"cancel","id":101}"#])
        // The viewer asked for the program's own CPU and memory first (its row's `u` columns).
        #expect(server.received.first == FakeServer.usageRequest)
        // The program's cancel events come back.
        server.send(
            #"{"seq":3,"t":2.5,"ev":"cancel","id":101,"source":"attach"}"# + "\n"
                + #"{"seq":4,"t":2.5,"ev":"state","id":101,"state":"cancelled"}"# + "\n")
        #expect(pump(session, &tree, errors: &errors) { t, _ in t[job].display == .cancelled })
        #expect(tree[job].cancelSource == "attach")
        // The row itself cancels the program's unsettled roots.
        _ = session.cancel(local: row, name: "svc (pid 77)", tree: tree)
        while server.commands.count < 2 && AttachLines.monotonic() < deadline + 30 { session.wait(seconds: 0.02) }
        #expect(server.commands.last == #"{"cmd":"cancel","id":100}"#)
        // An error line becomes the dashboard's message.
        server.send(#"{"ev":"error","message":"cancel is not allowed"}"# + "\n")
        #expect(pump(session, &tree, errors: &errors) { _, e in !e.isEmpty })
        #expect(errors == ["svc (pid 77): cancel is not allowed"])
        // Dropped without `end`: killed; the subtree stays.
        server.drop()
        #expect(pump(session, &tree, errors: &errors) { t, _ in t[row].info == "killed" })
        #expect(session.allEnded)
        #expect(tree.liveCount == 4)
        session.stop()
    }

    @Test func theDashboardSourceCancelsInTheProgramAndFinishesWhenItEnds() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(AttachLines.header(pid: 9, name: "svc") + AttachLines.snapshot(seq: 1))
        let source = AttachSource(session: session, title: "attach")
        var model = DashboardModel(title: "")
        source.start(model: &model)
        let deadline = AttachLines.monotonic() + 30
        while model.tree.liveCount < 4 && AttachLines.monotonic() < deadline {
            session.wait(seconds: 0.05)
            _ = source.tick(realElapsed: 1, model: &model)
        }
        #expect(model.title == "attach")
        // Lines wake the loop through the descriptor; time only moves the header clock.
        #expect(source.wakeDescriptors.count == 1)
        #expect(abs((source.secondsUntilNextTick(realElapsed: 1, model: model) ?? 0) - 0.05) < 1e-9)
        let row = model.tree.roots[0]
        let root = Int(model.tree[row].children[0])
        // x then y on `root`: the reducer's effect goes to the program, named in the message.
        model.view.selection = RowIndex(root)
        var effects = Reducer.reduce(&model, key: .char("x"), rows: 20)
        #expect(effects.isEmpty)
        effects = Reducer.reduce(&model, key: .char("y"), rows: 20)
        #expect(effects == [.cancel(node: NodeIndex(root), source: "keyboard")])
        for e in effects { source.perform(e, key: .char("y"), model: &model) }
        #expect(model.view.message == "Cancel of root sent to svc (pid 9)")
        while server.commands.isEmpty && AttachLines.monotonic() < deadline { session.wait(seconds: 0.02) }
        #expect(server.commands == [#"{"cmd":"cancel","id":0}"#])
        // Lines still in flight (a loaded machine) are absorbed first; after that, nothing
        // new: no redraw asked (the header clock shows the same tenth).
        var spins = 0
        while source.tick(realElapsed: 1.01, model: &model) && spins < 100 {
            spins += 1
            session.wait(seconds: 0.02)
        }
        #expect(source.tick(realElapsed: 1.01, model: &model) == false)
        #expect(model.outcome == nil)
        server.send(#"{"seq":2,"t":2,"ev":"end","summary":{}}"# + "\n")
        while model.outcome == nil && AttachLines.monotonic() < deadline {
            session.wait(seconds: 0.05)
            _ = source.tick(realElapsed: 1.02, model: &model)
        }
        #expect(model.outcome == .failed) // ended with its root executing; --exit-when-done quits
        #expect(source.secondsUntilNextTick(realElapsed: 2, model: model) == nil)
        source.finish(source: "quit", model: &model)
        #expect(!source.endedBySignal)
    }

    @Test func aCancelTheProgramFoundSettledSaysNothingWasCancelled() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(AttachLines.header(pid: 9, name: "svc") + AttachLines.snapshot(seq: 1))
        let source = AttachSource(session: session, title: "attach")
        var model = DashboardModel(title: "")
        source.start(model: &model)
        let deadline = AttachLines.monotonic() + 30
        while model.tree.liveCount < 4 && AttachLines.monotonic() < deadline {
            session.wait(seconds: 0.05)
            _ = source.tick(realElapsed: 1, model: &model)
        }
        let row = model.tree.roots[0]
        let job = Int(model.tree[Int(model.tree[row].children[0])].children[0])
        model.view.selection = RowIndex(job)
        let effects = Reducer.reduce(&model, key: .char("X"), rows: 20)
        for e in effects { source.perform(e, key: .char("X"), model: &model) }
        #expect(model.view.message == "Cancel of job a sent to svc (pid 9)")
        while server.commands.isEmpty && AttachLines.monotonic() < deadline { session.wait(seconds: 0.02) }
        // The job had succeeded in the program before the cancel arrived: its end is the answer.
        server.send(#"{"seq":2,"t":2,"ev":"state","id":1,"state":"completed"}"# + "\n")
        while model.tree[job].display != .succeeded && AttachLines.monotonic() < deadline {
            session.wait(seconds: 0.05)
            _ = source.tick(realElapsed: 1.1, model: &model)
        }
        #expect(model.view.message == "job a had finished: nothing cancelled")
        source.finish(source: "quit", model: &model)
    }

    @Test func headlessPrintsExecutingNodesThenStateLines() throws {
        let server = FakeServer()
        let session = AttachSession()
        try session.attach(path: server.path)
        server.accept()
        server.send(
            AttachLines.header(pid: 77, name: "svc") + AttachLines.snapshot(seq: 1, t: 1.5)
                + #"{"seq":2,"t":2,"ev":"state","id":1,"state":"completed","failed":true,"message":"boom\u001b[2J"}"#
                + "\n"
                + #"{"seq":3,"t":2.25,"ev":"cancel","id":2,"source":"attach"}"# + "\n"
                + #"{"seq":4,"t":2.25,"ev":"state","id":2,"state":"cancelled"}"# + "\n"
                + #"{"seq":5,"t":3,"ev":"end","summary":{}}"# + "\n")
        let out = LinesBox()
        let printer = AttachHeadless(session: session, print: { out.append($0) })
        #expect(printer.run(interrupted: { false }) == 1) // the root had not settled at `end`
        #expect(
            out.lines == [
                "[1.500] #0 root: executing",
                "[1.500] #1 job a: executing",
                "[2.000] #1 job a: failed: boom?[2J",
                "[2.250] #2 job b: cancelled (attach)",
                "svc (pid 77): exited: unfinished",
                "Summary: 0 succeeded, 1 failed, 1 cancelled, 0 skipped, 0 not executed, 1 executing",
            ])
    }

    @Test func aStaleSocketIsAClearError() {
        let server = FakeServer()
        let path = server.dir + "/gone.sock"
        #expect(throws: AttachError.self) { try AttachSession().attach(path: path) }
        #expect(AttachDiscovery.probe([path]) == [.gone(socket: path)])
    }

    @Test func theDefaultDirectoryFollowsTheRules() {
        #expect(AttachDiscovery.directory(environment: { $0 == "TASKGRAPH_SOCKET_DIR" ? "/a" : "/x" }) == "/a")
        #expect(
            AttachDiscovery.directory(environment: { $0 == "XDG_RUNTIME_DIR" ? "/run/user/5" : nil })
                == "/run/user/5/taskgraph")
        #expect(AttachDiscovery.directory(environment: { _ in nil }).hasPrefix("/tmp/taskgraph-"))
    }
}

final class LinesBox: @unchecked Sendable {
    var lines: [String] = []
    func append(_ s: String) { lines.append(s) }
}

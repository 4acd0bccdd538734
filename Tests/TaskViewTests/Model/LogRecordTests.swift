import Foundation
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// `log` events (records filed under nodes, `Graph.log`): graph → log line → reader → replay,
/// the detail pane with `L`, the rows' counts, the bounds and the exports.
@Suite struct LogRecordTests {
    /// A recorded graph: node 0 `request` logs a warning at t=1 and an error at t=2, prints a
    /// line in between, and completes at t=3.
    static func recordedLog() throws -> (ReplayLog, [String]) {
        let clock = VirtualClock()
        let g = Graph(clock: clock)
        let path = temporaryLogPath("logrecords")
        defer { unlink(path) }
        let recording = try g.record(to: path, producer: "logs")
        let task = GraphTask<Int, Never>(name: "request", graph: g) { _, succeed, _, _ in
            _ = clock.schedule(after: 3) { succeed(1) }
        }
        task.execute()
        clock.advance(by: 1)
        g.log(task.id, level: "warning", message: "disk almost full", metadata: ["disk": "sda"])
        clock.advance(by: 0.5)
        g.reportOutput(task.id, stream: .stdout, text: "copying")
        clock.advance(by: 0.5)
        g.log(task.id, level: "error", message: "copy failed")
        clock.advance(by: 1)
        recording.cancel()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try LogReader.load(path: path), text.split(separator: "\n").map(String.init))
    }

    @Test func aRecordIsOneLogLineReadBackAsTheSameRecord() throws {
        let (log, lines) = try Self.recordedLog()
        let logs = lines.filter { $0.contains(#""ev":"log""#) }
        #expect(logs.count == 2)
        #expect(
            logs.first?.hasSuffix(
                #""t":1,"ev":"log","id":0,"level":"warning","message":"disk almost full","metadata":{"disk":"sda"}}"#)
                == true)
        #expect(
            logs.last?.hasSuffix(#""ev":"log","id":0,"level":"error","message":"copy failed","metadata":{}}"#) == true)
        let records = log.events.compactMap { e -> String? in
            guard case .log(let id, let r) = e.change else { return nil }
            return "\(id.rawValue) \(r.level) \(r.message) \(r.metadata) at \(e.time)"
        }
        #expect(records == ["0 warning disk almost full [\"disk\": \"sda\"] at 1.0", "0 error copy failed [:] at 2.0"])
    }

    @Test func aReaderSkipsAnEventKindItDoesNotKnow() throws {
        let text = """
            {"format":"taskgraph-log","version":1,"created":"x","producer":"p"}
            {"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"c","weight":1}
            {"seq":2,"t":1,"ev":"later","id":0,"what":"a kind of a later version"}
            {"seq":3,"t":2,"ev":"state","id":0,"state":"executing"}

            """
        let log = try LogReader.parse(Array(text.utf8), name: "later.jsonl")
        #expect(log.events.count == 2)
    }

    @Test func replayShowsTheRecordsOfTheMomentBesideTheOutput() throws {
        let (log, _) = try Self.recordedLog()
        let source = ReplaySource(log: log, title: "replay")
        var m = DashboardModel(title: "replay")
        source.start(model: &m)
        source.seek(to: 1.7, model: &m)
        let d = m.displayTree()
        #expect(
            Array(Renderer(ascii: true).detailLines(m.tree, d, row: 0).suffix(3)) == [
                "Output (last 2 of 2 lines; 1 record):", "  [warning] disk almost full  disk=sda", "  copying",
            ])
        source.seek(to: log.duration, model: &m)
        #expect(
            Array(Renderer(ascii: true).detailLines(m.tree, m.displayTree(), row: 0).suffix(4)) == [
                "Output (last 3 of 3 lines; 2 records):", "  [warning] disk almost full  disk=sda", "  copying",
                "  [error] copy failed",
            ])
        #expect(m.tree.logCounts[0] == LogCounts(warnings: 1, errors: 1))
    }

    @Test func exportsCarryRecordsAsSpanEventsAndInstantEvents() throws {
        let (log, _) = try Self.recordedLog()
        let chrome = String(decoding: ChromeTrace.export(log), as: UTF8.self)
        #expect(
            chrome.contains(
                #"{"name":"disk almost full","cat":"log","ph":"i","s":"t","ts":1000000,"pid":1,"tid":0,"args":{"id":0,"level":"warning","disk":"sda"}}"#
            ))
        let otlp = String(decoding: OTLPTrace.export(log), as: UTF8.self)
        #expect(
            otlp.contains(
                #""name":"disk almost full","attributes":[{"key":"log.level","value":{"stringValue":"warning"}},{"key":"disk","value":{"stringValue":"sda"}}]}"#
            ))
        #expect(
            otlp.contains(#""name":"copy failed","attributes":[{"key":"log.level","value":{"stringValue":"error"}}]}"#))
    }
}

@Suite struct LogRecordPaneTests {
    /// `request` (0) under `server` (1 is its child `db`): records and output lines.
    static func script() -> EventScript {
        var s = EventScript()
        s.add(0, "server", kind: "scope")
        s.add(1, "request", kind: "scope", parent: 0)
        s.start(0)
        s.start(1)
        s.emit(.log(id: NodeID(1), record: NodeLogRecord(level: "info", message: "accepted")))
        s.emit(.output(id: NodeID(1), stream: .stderr, text: "raw line"))
        s.emit(
            .log(
                id: NodeID(1),
                record: NodeLogRecord(level: "warning", message: "slow \u{1B}[2J", metadata: ["peer": "a\u{7}b"])))
        s.emit(.log(id: NodeID(1), record: NodeLogRecord(level: "error", message: "timed out")))
        s.emit(.log(id: NodeID(1), record: NodeLogRecord(level: "notice", message: "retrying")))
        return s
    }

    @Test func theDetailPaneInterleavesRecordsWithOutputSanitized() {
        var m = model(Self.script())
        m.view.selection = RowIndex(1)
        let lines = Renderer(ascii: true).detailLines(m.tree, m.displayTree(), row: RowIndex(1))
        #expect(
            Array(lines.suffix(6)) == [
                "Output (last 5 of 5 lines; 4 records):", "  [info] accepted", "! raw line",
                "  [warning] slow ?[2J  peer=a?b", "  [error] timed out", "  [notice] retrying",
            ])
    }

    @Test func lCyclesTheMinimumLevelAndThePaneFollows() {
        var m = model(Self.script())
        m.view.selection = RowIndex(1)
        press(&m, .enter)
        #expect(m.view.logFilter == .all)
        press(&m, .char("L"))
        #expect(m.view.logFilter == .notice)
        #expect(m.view.message == "Log: records: notice and above")
        var lines = Renderer(ascii: true).detailLines(
            m.tree, m.displayTree(), row: RowIndex(1), logFilter: m.view.logFilter)
        #expect(Array(lines.suffix(5)).first == "Output (last 4 of 4 lines; 4 records, notice and above):")
        press(&m, .char("L"))
        lines = Renderer(ascii: true).detailLines(
            m.tree, m.displayTree(), row: RowIndex(1), logFilter: m.view.logFilter)
        #expect(
            Array(lines.suffix(4)) == [
                "Output (last 3 of 3 lines; 4 records, warning and above):", "! raw line",
                "  [warning] slow ?[2J  peer=a?b", "  [error] timed out",
            ])
        press(&m, .char("L"))
        #expect(m.view.logFilter == .error)
        press(&m, .char("L"))
        #expect(m.view.logFilter == .all)
    }

    @Test func searchAndTheDetailPaneCoverRecords() {
        var m = model(Self.script())
        m.view.selection = RowIndex(1)
        press(&m, .enter, .char("/"), .char("t"), .char("i"), .char("m"), .char("e"), .enter)
        #expect(m.detailOutput.map { OutputSearch.matches($0, "time") } == [3])
        let rows = frame(&m, 80, 24)
        #expect(rows.contains { $0.contains("detail: match 1 of 1") })
        #expect(rows.contains(">  [error] timed out"))
    }

    @Test func rowsShowTheWarningAndErrorRecordsOfTheirSubtree() {
        var m = model(Self.script())
        let rows = frame(&m, 100, 6, ascii: false)
        // The counts lead the info column; a why-line follows them.
        #expect(rows[1].contains("0.0s ⚠ 1 ✗ 1 waiting on 1 chi"))
        #expect(rows[2].contains("0.0s ⚠ 1 ✗ 1 running its own"))
        let ascii = frame(&m, 100, 6)
        #expect(ascii[1].contains("0.0s ! 1 X 1 waiting on 1 chi"))
    }

    @Test func aNodeKeepsItsLast1000RecordsAndSaysHowManyWereDropped() {
        var s = EventScript()
        s.add(0, "chatty", kind: "scope")
        for i in 0..<1_500 { s.emit(.log(id: NodeID(0), record: NodeLogRecord(level: "debug", message: "line \(i)"))) }
        s.emit(.log(id: NodeID(0), record: NodeLogRecord(level: "info", message: "after", droppedBefore: 1_204)))
        let m = model(s)
        let logs = m.tree.logs[0]
        #expect(logs?.count == 1_000)
        #expect(logs?.total == 1_501)
        #expect(logs?.entries.first?.text == "[debug] line 501")
        #expect(m.tree.droppedLogRecords == 1_204)
        let lines = Renderer(ascii: true).detailLines(m.tree, m.displayTree(), row: 0)
        #expect(
            Array(lines.suffix(2)) == ["  [1,204 records dropped]", "  [info] after"])
        #expect(lines.contains("Output (last 1001 of 1502 lines; 1,501 records; 1,204 records dropped):"))
    }
}

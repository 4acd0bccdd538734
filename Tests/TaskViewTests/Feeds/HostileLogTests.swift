import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

/// Hostile headers and lines: the reader answers every one with a clear error or a valid
/// log, and never traps (a trap would end the test process).
@Suite struct HostileLogTests {
    static let goodHeader = #"{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"t"}"#

    func load(_ text: String, skip: Bool = false) -> Result<ReplayLog, LogLoadError> {
        do {
            return .success(try LogReader.parse(Array(text.utf8), name: "x.jsonl", skipBadLines: skip))
        } catch let e as LogLoadError {
            return .failure(e)
        } catch {
            Issue.record("unexpected error type \(error)")
            return .failure(LogLoadError(path: "", line: nil, message: ""))
        }
    }

    @Test(arguments: [
        "1e300", "-1e300", "1.5", "-1", "0", "2", "9223372036854775808", "1e19", "18446744073709551616",
        "\"1\"", "true", "null", "[1]", "{\"v\":1}", "1e-300", "-0",
    ])
    func badVersionIsAClearError(_ version: String) {
        let text = #"{"format":"taskgraph-log","version":"# + version + "}\n"
        guard case .failure(let e) = load(text) else {
            Issue.record("accepted version \(version)")
            return
        }
        #expect(e.line == 1)
        #expect(e.message.contains("version") || e.message.contains("not a taskgraph log"), "\(e.message)")
    }

    @Test func versionOneStillLoads() throws {
        let log = try LogReader.parse(Array((Self.goodHeader + "\n").utf8), name: "x")
        #expect(log.header.version == 1)
    }

    @Test(arguments: [
        #"{"format":5,"version":1}"#, #"{"format":"taskgraph-log","version":1,"producer":7}"#,
        #"{"format":"taskgraph-log","version":1,"created":[]}"#,
        #"{"format":"taskgraph-log","version":1,"scenario":{}}"#,
        #"{"format":"taskgraph-log","version":1,"seed":"x"}"#, #"{"format":null,"version":1}"#,
    ])
    func headerFieldsOfWrongTypeAreErrors(_ header: String) {
        guard case .failure(let e) = load(header + "\n") else {
            Issue.record("accepted \(header)")
            return
        }
        #expect(e.line == 1)
    }

    /// 2,000 generated headers: numbers of every size and sign, wrong types, deep nesting,
    /// long strings, invalid UTF-8, truncations.
    @Test func fuzzHeaders() {
        var rng = SeededGenerator(seed: 14)
        var errors = 0
        for k in 0..<2_000 {
            var bytes = Array(Self.hostileHeader(&rng, k).utf8)
            if k % 7 == 0 { bytes.insert(contentsOf: [0xFF, 0xC3, 0x28], at: Int(rng.next() % UInt64(bytes.count))) }
            bytes.append(10)
            do {
                let log = try LogReader.parse(bytes, name: "fuzz")
                #expect(log.header.version == 1)
            } catch let e as LogLoadError {
                errors += 1
                #expect(!e.message.isEmpty)
                #expect(e.line == 1)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(errors > 1_000)
    }

    static let values = [
        "1e300", "-1e300", "1.5", "-1", "0", "1", "9223372036854775807", "9223372036854775808",
        "18446744073709551615", "1e19", "-9223372036854775809", "4503599627370496", "1E+400",
        "0.0000001", "\"\"", "true", "false", "null", "[]", "{}", "\"x\"", "-0", "1e-400",
        "123456789012345678901234567890",
    ]

    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    static func hostileHeader(_ rng: inout SeededGenerator, _ k: Int) -> String {
        func pick() -> String {
            switch rng.next() % 6 {
            case 0: return nested(Int(rng.next() % 3000))
            case 1: return "\"" + String(repeating: "a", count: Int(rng.next() % 70_000)) + "\""
            default: return values[Int(rng.next() % UInt64(values.count))]
            }
        }
        var fields = [#""format":"taskgraph-log""#]
        let keys = ["version", "created", "producer", "scenario", "seed", "format", "pid", "name"]
        for _ in 0..<(1 + rng.next() % 4) {
            fields.append("\"\(keys[Int(rng.next() % UInt64(keys.count))])\":\(pick())")
        }
        var line = "{" + fields.joined(separator: ",") + "}"
        if k % 11 == 0 { line = String(line.prefix(Int(rng.next() % UInt64(line.count)))) }
        return line
    }

    /// 2,000 generated event lines after a valid header and a small tree.
    @Test func fuzzEventLines() {
        var rng = SeededGenerator(seed: 1414)
        let prefix =
            Self.goodHeader + "\n"
            + #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"concurrent","name":"root","weight":1}"# + "\n"
        var errors = 0
        var ok = 0
        for k in 0..<2_000 {
            var line = Array(Self.hostileEvent(&rng, k).utf8)
            if k % 9 == 0 { line.insert(contentsOf: [0xC0, 0x80, 0xFE], at: Int(rng.next() % UInt64(line.count))) }
            let bytes = Array(prefix.utf8) + line + [10]
            do {
                _ = try LogReader.parse(bytes, name: "fuzz")
                ok += 1
            } catch let e as LogLoadError {
                errors += 1
                #expect(e.line == 3, "\(e)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
            // Skipping bad lines never throws past the header.
            #expect((try? LogReader.parse(bytes, name: "fuzz", skipBadLines: true)) != nil)
        }
        #expect(errors > 1_000)
        #expect(ok > 0)
    }

    static func hostileEvent(_ rng: inout SeededGenerator, _ k: Int) -> String {
        let evs = [
            "add", "parent", "weight", "state", "progress", "cancel", "drop", "key", "snapshot", "end",
            "resync", "zzz",
        ]
        let keys = [
            "id", "parent", "index", "kind", "name", "weight", "state", "fraction", "info", "source",
            "ids", "part", "parts", "nodes", "summary", "failed", "message", "skipped", "key",
        ]
        func value() -> String {
            switch rng.next() % 10 {
            case 0: return nested(Int(rng.next() % 5000))
            case 1: return "\"" + String(repeating: "\u{1B}[2J", count: Int(rng.next() % 5000)) + "\""
            case 2:
                return "["
                    + (0..<Int(rng.next() % 50)).map { _ in values[Int(rng.next() % UInt64(values.count))] }.joined(
                        separator: ",") + "]"
            case 3: return #"[{"id":"# + values[Int(rng.next() % UInt64(values.count))] + #","parent":-5}]"#
            case 4: return ["\"executing\"", "\"completed\"", "\"bogus\"", "\"concurrent\""][Int(rng.next() % 4)]
            default: return values[Int(rng.next() % UInt64(values.count))]
            }
        }
        let seq = ["2", "1", "0", "-1", "3", "1e300", "2.5", "\"2\""][Int(rng.next() % 8)]
        let t = ["0", "1", "-1", "1e300", "NaN", "\"t\""][Int(rng.next() % 6)]
        var fields = ["\"seq\":\(seq)", "\"t\":\(t)", "\"ev\":\"\(evs[Int(rng.next() % UInt64(evs.count))])\""]
        for _ in 0..<(rng.next() % 6) {
            fields.append("\"\(keys[Int(rng.next() % UInt64(keys.count))])\":\(value())")
        }
        var line = "{" + fields.joined(separator: ",") + "}"
        if k % 13 == 0 { line = String(line.prefix(Int(rng.next() % UInt64(line.count)))) }
        return line
    }
}

/// Sparse ids: memory and time follow the nodes present, not the largest id.
@Suite struct SparseIDTests {
    @Test func aLogWhoseOneNodeHasTheLargestIdLoadsSmall() throws {
        let text =
            HostileLogTests.goodHeader + "\n"
            + #"{"seq":1,"t":0,"ev":"add","id":16777215,"kind":"task","name":"x","weight":1}"# + "\n"
            + #"{"seq":2,"t":0,"ev":"snapshot","part":1,"parts":1,"nodes":[{"id":3,"kind":"task","name":"a","weight":1},{"id":16777214,"kind":"task","parent":3,"index":0,"name":"b","weight":1},{"id":16777215,"kind":"task","name":"x","weight":1}]}"#
            + "\n"
        let log = try LogReader.parse(Array(text.utf8), name: "sparse")
        #expect(log.finalModel.liveCount == 3)
        #expect(log.finalModel.rootIDs == [3, 16_777_215])
        #expect(log.finalModel.nodes.count == 3) // one slot per node, whatever the ids
        #expect(log.finalModel[16_777_214]?.parent == 3)
    }

    @Test func denseAndSparseIdsMix() {
        var m = LogModel()
        for id in [5, 16_000_000, 0, 1, 2, 9_000] {
            m.add(LogModel.Node(id: Int32(id), kind: "task", name: "n\(id)", weight: 1))
        }
        #expect(m.liveNodesByID().map(\.id) == [0, 1, 2, 5, 9_000, 16_000_000])
        #expect(m.contains(16_000_000) && m.contains(9_000) && !m.contains(3))
        // Filling the gap moves sparse ids into the flat table without losing them.
        for id in 10..<9_000 { m.add(LogModel.Node(id: Int32(id), kind: "task", name: "", weight: 1)) }
        #expect(m.contains(9_000) && m[9_000]?.name == "n9000")
        #expect(m.liveCount == 6 + 8_990)
    }
}

@Suite struct SparseTreeTests {
    @Test func theDashboardTreeHoldsOnlyTheNodesPresent() throws {
        var tree = TreeModel()
        let ids = [16_777_215, 3, 9_000_000, 16_777_214, 0]
        for (k, id) in ids.enumerated() {
            tree.absorb(
                GraphEvent(
                    sequence: UInt64(k + 1), time: 0,
                    change: .added(
                        id: NodeID(id), kind: NodeKind.concurrent, name: "n\(id)", weight: 1,
                        parent: k == 3 ? NodeID(16_777_215) : nil, index: k == 3 ? 0 : nil)))
        }
        tree.absorb(
            GraphEvent(
                sequence: 9, time: 1,
                change: .stateChanged(
                    id: NodeID(16_777_214), state: .executing, failed: false, message: nil)))
        #expect(tree.nodes.storedCount < 5_000)
        #expect(tree.liveCount == 5)
        #expect(tree.roots == [16_777_215, 3, 9_000_000, 0])
        #expect(tree[16_777_215].children == [16_777_214])
        #expect(tree[16_777_214].display == .executing)
        tree.absorb(GraphEvent(sequence: 10, time: 2, change: .dropped(ids: [NodeID(16_777_214)])))
        #expect(!tree.contains(16_777_214) && tree[16_777_215].children.isEmpty)
    }

    @Test func aReplayOfTheLargestIdIsSmall() throws {
        let text =
            HostileLogTests.goodHeader + "\n"
            + #"{"seq":1,"t":0,"ev":"add","id":16777215,"kind":"task","name":"x","weight":1}"# + "\n"
        let log = try LogReader.parse(Array(text.utf8), name: "big")
        let lines = ReplaySource.headlessLines(log)
        // The summary's tree ends with it; the run's report follows.
        let report = lines.firstIndex(of: "First failure: none")
        #expect(report.map { lines[$0 - 1] } == "#16777215 x: not executed")
    }
}

/// `diff` reads a log's events alone: the final state is not folded while loading, yet
/// anything that asks for it still gets the same answer.
@Suite struct EventsOnlyLoadTests {
    @Test func anEventsOnlyLoadAnswersAsAFullLoad() throws {
        let text =
            HostileLogTests.goodHeader + "\n"
            + #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"root","weight":1}"# + "\n"
            + #"{"seq":2,"t":0.1,"ev":"state","id":0,"state":"executing"}"# + "\n"
            + #"{"seq":3,"t":0.2,"ev":"progress","id":0,"fraction":0.5}"# + "\n"
            + #"{"seq":4,"t":0.3,"ev":"state","id":0,"state":"completed","failed":true,"message":"boom"}"# + "\n"
        let full = try LogReader.parse(Array(text.utf8), name: "full")
        let events = try LogReader.parse(
            Array(text.utf8), name: "events", skipBadLines: false, foldsFinalModel: false)
        #expect(full.outcome == "failed")
        #expect(events.outcome == "failed")
        #expect(events.finalSnapshot == full.finalSnapshot)
        #expect(events.events.count == 4)
        #expect(events.foldedFinalModel == nil) // the fast path left the model stale: refolded on demand
    }
}

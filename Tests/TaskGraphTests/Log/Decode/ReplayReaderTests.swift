import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// A random but well-formed event history: nodes added as leaves then adopted, states moving
/// forward, progress with and without info, weights, cancels and drops.
func randomHistory(seed: UInt64, events count: Int) -> [GraphEvent] {
    var rng = SeededGenerator(seed: seed)
    var out: [GraphEvent] = []
    var t = 0.0
    var nextID = 0
    var parentOf: [Int: Int] = [:]
    var state: [Int: TaskState] = [:]
    var live: [Int] = []
    func push(_ c: GraphChange) {
        out.append(GraphEvent(sequence: UInt64(out.count + 1), time: t, change: c))
    }
    while out.count < count {
        if rng.next() % 4 == 0 { t += Double(rng.next() % 1000) / 1000 }
        let r = rng.next() % 100
        if live.count < 3 || r < 15 {
            let id = nextID
            nextID += 1
            push(
                .added(
                    id: NodeID(id), kind: NodeKind.all[Int(rng.next() % 15)], name: "n\(id)",
                    weight: Double(rng.next() % 4), parent: nil, index: nil))
            live.append(id)
            state[id] = .notExecuted
        } else if r < 25 {
            // Adopt a root by a newer node (as composites adopt their earlier-made subtasks).
            let child = live[Int(rng.next() % UInt64(live.count))]
            let parent = live[Int(rng.next() % UInt64(live.count))]
            guard parentOf[child] == nil, parent > child else { continue }
            parentOf[child] = parent
            push(.parentSet(id: NodeID(child), parent: NodeID(parent), index: Int(rng.next() % 3)))
        } else if r < 70 {
            let id = live[Int(rng.next() % UInt64(live.count))]
            push(
                .progress(
                    id: NodeID(id),
                    progress: TaskProgress(
                        Double(rng.next() % 1001) / 1000,
                        info: r % 2 == 0 ? "phase \(r)" : nil)))
        } else if r < 90 {
            let id = live[Int(rng.next() % UInt64(live.count))]
            switch state[id]! {
            case .notExecuted:
                state[id] = .executing
                push(.stateChanged(id: NodeID(id), state: .executing, failed: false, message: nil))
            case .executing:
                let failed = r % 3 == 0
                state[id] = .completed
                push(
                    .stateChanged(
                        id: NodeID(id), state: .completed, failed: failed, message: failed ? "err \(id)" : nil))
            default: continue
            }
        } else if r < 95 {
            let id = live[Int(rng.next() % UInt64(live.count))]
            push(.cancelRequested(id: NodeID(id), source: "api"))
            push(.weightChanged(id: NodeID(id), weight: 0.5))
        } else if live.count > 10 {
            // Drop a whole root subtree.
            guard let id = live.first(where: { parentOf[$0] == nil }) else { continue }
            var gone = [id]
            var k = 0
            while k < gone.count {
                let p = gone[k]
                gone += live.filter { parentOf[$0] == p }
                k += 1
            }
            live.removeAll { gone.contains($0) }
            push(.dropped(ids: gone.map { NodeID($0) }))
        }
    }
    return out
}

/// Records `events` to a log in `dir`; returns its path.
func writeLog(
    _ events: [GraphEvent], in dir: TemporaryDirectory, snapshotEvery: Int = 50, finish: Bool = true
) throws -> String {
    let path = dir.file("hist.jsonl")
    let r = try GraphRecorder(path: path, producer: "test", snapshotEvery: snapshotEvery)
    for e in events { r.record(e) }
    if finish { r.finish() } else { r.abandon() }
    return path
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

let headerLine = #"{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"t"}"#

func loadError(_ text: String, skip: Bool = false) -> LogLoadError? {
    do {
        _ = try LogReader.parse(bytes(text), name: "bad.jsonl", skipBadLines: skip)
        return nil
    } catch let e as LogLoadError {
        return e
    } catch {
        return nil
    }
}

@Suite struct ReplayReaderTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func roundTripRebuildsTheRecordedState(seed: UInt64) throws {
        let events = randomHistory(seed: seed, events: 3000)
        let tmp = TemporaryDirectory("taskgraph-hist")
        defer { tmp.remove() }
        let path = try writeLog(events, in: tmp)
        let log = try LogReader.load(path: path)
        var replica = GraphReplica()
        for e in events { replica.apply(e) }
        let expected = replica.snapshot
        #expect(log.eventCount == events.count)
        #expect(log.finalSnapshot.nodes == expected.nodes)
        #expect(log.finalSnapshot.roots == expected.roots)
        #expect(log.snapshot(afterEvents: events.count).nodes == expected.nodes)
        #expect(log.end != nil)
        #expect(log.checkpoints.count > 5)
        // Events come back with the same changes and times.
        #expect(log.events.map(\.change) == events.map(\.change))
        #expect(log.events.map(\.time) == events.map(\.time))
    }

    @Test func seekingGivesTheSameStateAsPlayingFromTheStart() throws {
        let events = randomHistory(seed: 42, events: 4000)
        let tmp = TemporaryDirectory("taskgraph-hist")
        defer { tmp.remove() }
        let path = try writeLog(events, in: tmp, snapshotEvery: 40)
        let log = try LogReader.load(path: path)
        var rng = SeededGenerator(seed: 9)
        for _ in 0..<40 {
            let time = Double(rng.next() % UInt64((log.duration + 1) * 1000)) / 1000
            let n = log.eventCount(atTime: time)
            var replica = GraphReplica()
            for e in events.prefix(n) { replica.apply(e) }
            let seeked = log.snapshot(atTime: time)
            #expect(seeked.nodes == replica.snapshot.nodes)
            #expect(seeked.roots == replica.snapshot.roots)
            #expect(n == events.filter { $0.time <= time }.count)
        }
    }

    @Test func rebuildEventsReproduceTheState() throws {
        let events = randomHistory(seed: 5, events: 1500)
        let tmp = TemporaryDirectory("taskgraph-hist")
        defer { tmp.remove() }
        let path = try writeLog(events, in: tmp)
        let log = try LogReader.load(path: path)
        for n in [0, 1, 700, 1500] {
            var replica = GraphReplica()
            for e in log.rebuildEvents(afterEvents: n) { replica.apply(e) }
            let want = log.snapshot(afterEvents: n).nodes
            for (id, node) in want where replica.snapshot.nodes[id] != node {
                Issue.record("\(id): \(String(describing: replica.snapshot.nodes[id])) != \(node)")
            }
            #expect(replica.snapshot.nodes.count == want.count)
        }
    }

    /// Without a final snapshot, the final state comes from the last snapshot plus the
    /// events after it (the reader's fast path does not keep states and progress itself).
    @Test(arguments: [0, 1, 2] as [Int])
    func finalStateOfALogWithoutFinalSnapshot(cut: Int) throws {
        let events = randomHistory(seed: 11 + UInt64(cut), events: 900 + 7 * cut)
        let tmp = TemporaryDirectory("taskgraph-hist")
        defer { tmp.remove() }
        let path = try writeLog(events, in: tmp, snapshotEvery: 100, finish: false)
        let log = try LogReader.load(path: path)
        var replica = GraphReplica()
        for e in events { replica.apply(e) }
        #expect(log.end == nil)
        #expect(log.eventCount == events.count)
        #expect(log.finalSnapshot.nodes == replica.snapshot.nodes)
        #expect(log.finalSnapshot.roots == replica.snapshot.roots)
        #expect(log.checkpoints.last.map { $0.eventCount < events.count } == true)
    }

    @Test func truncatedFinalLineIsDroppedAndReported() throws {
        let events = randomHistory(seed: 8, events: 200)
        let tmp = TemporaryDirectory("taskgraph-hist")
        defer { tmp.remove() }
        let path = try writeLog(events, in: tmp, finish: false)
        var data = try LogReader.readFile(path)
        let lines = data.filter { $0 == 10 }.count
        data.removeLast(7)
        let log = try LogReader.parse(data, name: "cut.jsonl")
        // Header, then seq 1 ... lines - 1; the last one is cut.
        #expect(log.truncatedAfterSeq == UInt64(lines - 2))
        #expect(log.notices == ["cut.jsonl: truncated after seq \(lines - 2)"])
        #expect(log.end == nil)
        #expect(log.eventCount == 199)
    }

    @Test func unknownMajorVersionIsRefused() {
        let e = loadError(#"{"format":"taskgraph-log","version":2}"# + "\n")
        #expect(e?.description == "bad.jsonl: line 1: unsupported log version 2 (this taskview reads version 1)")
        #expect(loadError(#"{"format":"other","version":1}"# + "\n")?.line == 1)
        #expect(loadError("")?.description == "bad.jsonl: line 1: empty file: no header line")
    }

    @Test func unknownFieldsAndEventKindsAreIgnored() throws {
        let text =
            String(headerLine.dropLast(1)) + #","future":{"a":[1,2]}}"# + "\n"
            + #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"a","weight":1,"colour":"red"}"# + "\n"
            + #"{"seq":2,"t":0.5,"ev":"teleport","id":0,"x":[{"y":null}]}"# + "\n"
            + #"{"seq":3,"t":1,"ev":"state","id":0,"state":"executing"}"# + "\n"
        let log = try LogReader.parse(bytes(text), name: "m")
        #expect(log.eventCount == 2)
        #expect(log.finalSnapshot[NodeID(0)]?.state == .executing)
        #expect(!log.rootSettled)
    }

    @Test func badLinesAreNamedByNumber() {
        let add0 = #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"a","weight":1}"#
        let add1 = #"{"seq":2,"t":0,"ev":"add","id":1,"kind":"task","name":"b","weight":1}"#
        func log(_ lines: String...) -> String { ([headerLine] + lines).joined(separator: "\n") + "\n" }
        #expect(
            loadError(log(add0, "{\"seq\":2,\"t\":0,\"ev\":")).map { "\($0.line!) \($0.message)" }
                == "3 expected a string at column 21")
        #expect(
            loadError(log(#"{"seq":1,"t":0,"ev":"add","id":-1,"kind":"task","name":"a","weight":1}"#))?.description
                == "bad.jsonl: line 2: id -1 is out of range (0...2147483647)")
        #expect(
            loadError(log(add0, #"{"seq":2,"t":0,"ev":"parent","id":0,"parent":5,"index":0}"#))?.description
                == "bad.jsonl: line 3: node 5 does not exist")
        #expect(
            loadError(
                log(
                    add0, add1, #"{"seq":3,"t":0,"ev":"parent","id":0,"parent":1,"index":0}"#,
                    #"{"seq":4,"t":0,"ev":"parent","id":1,"parent":0,"index":0}"#))?.description
                == "bad.jsonl: line 5: making 0 the parent of 1 creates a cycle")
        #expect(loadError(log(add0, #"{"seq":2,"t":0,"ev":"parent","id":0,"parent":0,"index":0}"#))?.line == 3)
        #expect(loadError(log(add0, #"{"seq":2,"t":0,"ev":"weight","id":0,"weight":-1}"#))?.line == 3)
        #expect(
            loadError(log(add0, #"{"seq":3,"t":0,"ev":"state","id":0,"state":"executing"}"#))?.message
                == "seq 3 follows 1: lines are missing")
        #expect(
            loadError(
                log(
                    #"{"seq":1,"t":5,"ev":"add","id":0,"kind":"task","name":"a","weight":1}"#,
                    #"{"seq":2,"t":1,"ev":"state","id":0,"state":"executing"}"#))?.line == 3)
        #expect(loadError(log(add0, #"{"seq":2,"t":0,"ev":"progress","id":0,"fraction":7}"#))?.line == 3)
        #expect(
            loadError(
                log(
                    add0,
                    #"{"seq":2,"t":0,"ev":"snapshot","part":1,"parts":1,"nodes":[{"id":0,"kind":"task","parent":1,"name":"a","weight":1,"state":"executing","failed":false,"fraction":0},{"id":1,"kind":"task","parent":0,"name":"b","weight":1,"state":"executing","failed":false,"fraction":0}]}"#
                ))?.message
                == "snapshot nodes form a cycle at node 0")
        #expect(
            loadError(log(add0, #"{"seq":2,"t":0,"ev":"add","id":1e300,"kind":"task","name":"a","weight":1}"#))?.line
                == 3)
    }

    @Test func aLineOverTheCapIsBad() {
        let big =
            #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":""# + String(repeating: "x", count: 5 << 20)
            + #"","weight":1}"#
        let text = headerLine + "\n" + big + "\n"
        let e = loadError(text)
        #expect(e?.line == 2)
        #expect(e?.message.hasPrefix("line is longer than the reader's cap of 4 MiB") == true)
    }

    @Test func skipBadLinesCountsThem() throws {
        let text =
            [
                headerLine,
                #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"a","weight":1}"#,
                "garbage",
                #"{"seq":3,"t":0,"ev":"parent","id":0,"parent":9,"index":0}"#,
                #"{"seq":4,"t":1,"ev":"state","id":0,"state":"executing"}"#,
                #"{"seq":5,"t":2,"ev":"state","id":0,"state":"completed"}"#,
            ].joined(separator: "\n") + "\n"
        #expect(loadError(text)?.line == 3)
        let log = try LogReader.parse(bytes(text), name: "s", skipBadLines: true)
        #expect(log.skippedLines == 2)
        #expect(log.notices == ["s: skipped 2 bad lines"])
        #expect(log.finalSnapshot[NodeID(0)]?.state == .completed)
        #expect(log.rootSettled)
        #expect(log.outcome == "succeeded")
    }
}

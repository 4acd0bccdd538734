import TaskGraph
import Testing

@testable import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// The Chrome trace read back: within one lane (`tid`) a slice nests in its parent's slice or
/// overlaps nothing, so tasks that ran side by side are never drawn as if nested.
@Suite struct ChromeTraceLaneTests {
    struct Slice {
        var id = -1, parent = -1, tid = -1, ts = 0, dur = 0
        var end: Int { ts + dur }
    }

    static func slices(_ bytes: [UInt8]) throws -> [Slice] {
        guard case .object(let top) = try JSONParser.parse(bytes).value,
            case .array(let events)? = top.first(where: { $0.key == "traceEvents" })?.value.value
        else {
            Issue.record("no traceEvents")
            return []
        }
        var out: [Slice] = []
        for e in events {
            guard case .object(let fields) = e.value else { continue }
            func number(_ key: String, in f: [JSONMember]) -> Int? {
                if case .number(let n)? = f.first(where: { $0.key == key })?.value.value { return Int(n) }
                return nil
            }
            guard case .string("X")? = fields.first(where: { $0.key == "ph" })?.value.value else { continue }
            var s = Slice()
            s.tid = number("tid", in: fields) ?? -1
            s.ts = number("ts", in: fields) ?? -1
            s.dur = number("dur", in: fields) ?? -1
            if case .object(let args)? = fields.first(where: { $0.key == "args" })?.value.value {
                s.id = number("id", in: args) ?? -1
                s.parent = number("parent", in: args) ?? -1
            }
            out.append(s)
        }
        return out
    }

    /// Every lane is a proper flame graph of parent/child slices; returns the lane count.
    static func checkNesting(_ slices: [Slice]) -> Int {
        var lanes: [Int: [Slice]] = [:]
        for s in slices { lanes[s.tid, default: []].append(s) }
        // Depth in the tree, so that a parent comes before a child with the same span.
        let parentOf = Dictionary(slices.map { ($0.id, $0.parent) }, uniquingKeysWith: { a, _ in a })
        func depth(_ id: Int) -> Int {
            var d = 0
            var p = parentOf[id] ?? -1
            while p >= 0, d < slices.count {
                d += 1
                p = parentOf[p] ?? -1
            }
            return d
        }
        for (tid, var list) in lanes {
            list.sort { ($0.ts, -$0.dur, depth($0.id)) < ($1.ts, -$1.dur, depth($1.id)) }
            var stack: [Slice] = []
            for s in list {
                while let top = stack.last, top.end <= s.ts, !(top.ts == s.ts && s.dur == 0 && top.dur == 0) {
                    stack.removeLast()
                }
                if let top = stack.last {
                    let sameSpan = top.ts == s.ts && top.end == s.end
                    let nests = s.end <= top.end && (top.id == s.parent || (sameSpan && s.id == top.parent))
                    #expect(
                        nests,
                        "lane \(tid): #\(s.id) [\(s.ts), \(s.end)] overlaps #\(top.id) [\(top.ts), \(top.end)] without being its child"
                    )
                    if !nests { return lanes.count }
                }
                stack.append(s)
            }
        }
        return lanes.count
    }

    @Test func concurrentTasksGetTheirOwnLanes() throws {
        for demo in ["build", "flaky"] {
            let log = try demoLog(demo, seed: 3).log
            let slices = try Self.slices(ChromeTrace.export(log))
            #expect(slices.count == log.finalSnapshot.nodes.values.filter { $0.state != .notExecuted }.count)
            let lanes = Self.checkNesting(slices)
            #expect(lanes > 1, "\(demo): tasks ran side by side, so more than one lane")
        }
    }

    @Test func siblingsThatTakeTurnsShareTheirParentsLane() throws {
        let run = try recordGraph("turns") { graph, _ in
            let a = GraphTask<Void, Never>.delay(seconds: 1, name: "a", graph: graph)
            let b = GraphTask<Void, Never>.delay(seconds: 1, name: "b", graph: graph)
            return GraphTask.sequential([a, b], name: "seq", graph: graph).execute()
        }
        #expect(run.value.state == .completed)
        let slices = try Self.slices(ChromeTrace.export(run.log))
        #expect(slices.count == 3)
        #expect(Set(slices.map(\.tid)) == [0])
        #expect(Self.checkNesting(slices) == 1)
    }

    /// 100,001 nested slices: the export is linear (it used to walk every node's ancestors).
    @Test func aHundredThousandDeepChainExportsInOneLane() throws {
        let run = try recordGraph("deep") { graph, _ in
            var t = GraphTask<Int, Never>.succeed(1, name: "leaf", graph: graph)
            for _ in 0..<100_000 { t = t.mapResult { $0 } }
            return t.execute()
        }
        #expect(run.value.outcome != nil)
        let text = String(decoding: ChromeTrace.export(run.log), as: UTF8.self)
        #expect(text.split(separator: "\"ph\":\"X\"").count - 1 == 100_001)
        #expect(!text.contains("\"tid\":1,")) // all in lane 0, nested
    }
}

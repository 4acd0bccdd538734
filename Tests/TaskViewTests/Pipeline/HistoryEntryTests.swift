import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// One line of a scenario's run history (docs/taskview.md, "Run history").
@Suite struct HistoryEntryTests {
    static let sample = HistoryEntry(
        run: "ci-20260131-120000.jsonl", start: 1_769_860_800.5, seconds: 4, status: 1,
        nodes: [
            .init(path: "ci", outcome: "failed", seconds: 4, attempts: 1, key: "0123456789abcdef"),
            .init(path: "ci/test#2", outcome: "succeeded", seconds: 1.25, attempts: 3, key: nil),
            .init(path: "ci/docs", outcome: "skipped", seconds: nil, attempts: 1, commit: "abc123", dirty: true),
        ])

    @Test func encodesAsOneLineAndReadsBack() {
        let line = Self.sample.line
        #expect(
            line
                == #"{"run":"ci-20260131-120000.jsonl","start":1769860800.5,"seconds":4,"status":1,"nodes":["#
                + #"{"path":"ci","outcome":"failed","seconds":4,"attempts":1,"key":"0123456789abcdef"},"#
                + #"{"path":"ci/test#2","outcome":"succeeded","seconds":1.25,"attempts":3},"#
                + #"{"path":"ci/docs","outcome":"skipped","attempts":1,"commit":"abc123","dirty":true}]}"#)
        #expect(HistoryEntry(line: Array(line.utf8)) == Self.sample)
        var unrecorded = Self.sample
        unrecorded.run = nil
        unrecorded.seconds = nil
        #expect(unrecorded.line.hasPrefix(#"{"run":null,"start":1769860800.5,"status":1,"#))
        #expect(HistoryEntry(line: Array(unrecorded.line.utf8)) == unrecorded)
    }

    @Test func unknownFieldsAreIgnoredAndMissingOnesRefused() {
        let later =
            #"{"run":"a","start":1,"status":0,"host":"x","nodes":[{"path":"a","outcome":"succeeded","attempts":1,"gpu":2}]}"#
        #expect(HistoryEntry(line: Array(later.utf8))?.nodes == [.init(path: "a", outcome: "succeeded", seconds: nil)])
        let escaped = """
             {"host":{"a":[1,{"b":null}],"c":-2.5e3},"start":1.5e9,"status":130,"run":"r\\u00e9",             "nodes":[{"path":"ci/a\\\\/b \\"q\\"","outcome":"cancelled","seconds":2E-3,"attempts":2,"dirty":false}]}
            """
        #expect(
            HistoryEntry(line: Array(escaped.utf8))
                == HistoryEntry(
                    run: "r\u{e9}", start: 1.5e9, seconds: nil, status: 130,
                    nodes: [
                        .init(path: #"ci/a\/b "q""#, outcome: "cancelled", seconds: 0.002, attempts: 2, dirty: false)
                    ]))
        for bad in [
            #"{"run":"a","status":0,"nodes":[]}"#, // no start
            #"{"run":"a","start":1,"status":"0","nodes":[]}"#, // status is not a number
            #"{"run":"a","start":1,"status":0,"nodes":[{"path":"a","attempts":1}]}"#, // no outcome
            #"{"run":"a","start":1,"status":0,"nodes":[{"path":"a","outcome":"failed","attempts":1.5}]}"#,
            #"{"run":"a","start":1,"status":0,"nodes":[]"#, // cut short
            "[1,2]",
            #"{"run":"a","start":1,"status":0,"nodes":[]} x"#, // trailing text
            "{\"run\":\"a\tb\",\"start\":1,\"status\":0,\"nodes\":[]}", // a raw tab in a string
        ] {
            #expect(HistoryEntry(line: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func aRunTooLargeForOneLineKeepsTheRowsThatFitAndCountsTheRest() throws {
        let nodes = (0..<15_000).map {
            HistoryEntry.Node(path: "root/a rather long name of a step \($0)", outcome: "succeeded", seconds: 1.5)
        }
        let entry = HistoryEntry(run: "r", start: 0, seconds: 1, status: 0, nodes: nodes)
        let line = entry.line
        #expect(line.utf8.count <= HistoryEntry.maxLineBytes)
        let back = try #require(HistoryEntry(line: Array(line.utf8)))
        #expect(back.nodes.count > 10_000)
        #expect(back.nodes == Array(nodes.prefix(back.nodes.count)))
        #expect(back.omitted == 15_000 - back.nodes.count)
    }

    @Test func theEntryOfARunHasEveryRowWithItsOutcomeTimeAndInputKey() throws {
        let text = """
            {"kind": "sequential", "name": "ci", "children": [
              {"kind": "concurrent", "name": "build", "children": [
                {"kind": "work", "name": "core", "duration": 2},
                {"kind": "work", "name": "core", "duration": 3}
              ]},
              {"kind": "work", "name": "test", "duration": 1, "fail": true},
              {"kind": "work", "name": "ship", "duration": 1}
            ]}
            """
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "p.json", name: "p")
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        let root = ScenarioBuilder(graph: graph, seed: 0).build(scenario)
        var final: TreeModel?
        let outcome = HeadlessRunner.run(
            graph: graph, clock: clock, root: root.id, finished: { final = $0 }, print: { _ in },
            start: { root.execute() })
        let tree = try #require(final)
        let keys = DefinitionKey.keys(scenario)
        let entry = HistoryEntry(
            tree: tree, root: root.id.rawValue, run: "p.jsonl", start: 100, status: Int(outcome.exitStatus), keys: keys)
        #expect(entry.seconds == 4)
        #expect(entry.status == 1)
        #expect(
            entry.nodes.map(\.path) == ["ci", "ci/build", "ci/build/core", "ci/build/core#2", "ci/test", "ci/ship"])
        #expect(entry.nodes.map(\.outcome) == ["failed", "succeeded", "succeeded", "succeeded", "failed", "skipped"])
        #expect(entry.nodes.map(\.seconds) == [4, 3, 2, 3, 1, nil])
        #expect(entry.nodes.map(\.attempts) == [1, 1, 1, 1, 1, 1])
        // Each node's key is its own definition's: the two `core`s differ by duration.
        let core = scenario.root.children[0].children
        #expect(entry.nodes[2].key == DefinitionKey.key(core[0]))
        #expect(entry.nodes[3].key == DefinitionKey.key(core[1]))
        #expect(Set(entry.nodes.compactMap(\.key)).count == 6)
    }

    @Test func theInputKeyIsStableAndFollowsTheDefinition() throws {
        func node(_ json: String) throws -> ScenarioNode {
            try ScenarioDecoder.decode(Array(json.utf8), file: "p.json", name: "p").root
        }
        let a = try node(#"{"kind":"command","name":"b","run":"make","env":{"X":"1","Y":"2"}}"#)
        let same = try node(#"{"name":"b","env":{"Y":"2","X":"1"},"run":"make","kind":"command"}"#)
        let other = try node(#"{"kind":"command","name":"b","run":"make","env":{"X":"1","Y":"3"}}"#)
        #expect(DefinitionKey.key(a) == DefinitionKey.key(same))
        #expect(DefinitionKey.key(a) != DefinitionKey.key(other))
        // FNV-1a 64 of its canonical text, written as 16 hex digits.
        #expect(DefinitionKey.fnv1a64("") == 0xCBF2_9CE4_8422_2325)
        #expect(DefinitionKey.fnv1a64("a") == 0xAF63_DC4C_8601_EC8C)
        let key = DefinitionKey.key(a)
        #expect(key.count == 16 && key.allSatisfy { $0.isHexDigit })
    }
}

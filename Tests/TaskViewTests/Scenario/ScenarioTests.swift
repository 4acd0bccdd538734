import Synchronization
import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

func decodeError(_ text: String) -> String? {
    do {
        _ = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        return nil
    } catch {
        return error.description
    }
}

@Suite struct ScenarioTests {
    @Test func embeddedDemosMatchTheFiles() throws {
        let root = packageRoot()
        #expect(ScenarioLoader.demoNames == ["build", "pipeline", "flaky", "stress", "commands", "ci", "explain"])
        // Every file in demos/ is shipped (SwiftPM warns about one not declared as a resource).
        let dir = opendir("\(root)/demos")
        defer { if let dir { closedir(dir) } }
        var files: [String] = []
        while let dir, let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".json") { files.append(String(name.dropLast(5))) }
        }
        #expect(files.sorted() == ScenarioLoader.demoNames.sorted())
        for name in ScenarioLoader.demoNames {
            let file = try LogReader.readFile("\(root)/demos/\(name).json")
            #expect(Array((ScenarioLoader.demoText(name)! + "\n").utf8) == file)
            #expect(try ScenarioLoader.demo(name).description?.isEmpty == false)
        }
    }

    @Test func scenariosOverBudgetAreRefusedNamingTheNode() {
        let events = decodeError(
            #"{"kind":"concurrent","name":"c","children":[{"kind":"work","name":"w","repeat":100000,"steps":100000}]}"#)
        #expect(
            events
                == "s.json: $.children[100] (work \"w 101\"): the scenario asks for more than 10,000,000 progress events, over taskview's budget"
        )
        let retry =
            #"{"kind":"retry","name":"a","attempts":1000,"children":[{"kind":"retry","name":"b","attempts":1000,"children":[{"kind":"retry","name":"c","attempts":1000,"children":[{"kind":"work","name":"w","steps":0}]}]}]}"#
        #expect(
            decodeError(retry)?.hasPrefix(
                "s.json: $.children[0].children[0] (retry \"c\"): the scenario asks for more than 1,000,000 nodes")
                == true)
        // One level of 1,000 attempts with 100 steps is within budget.
        #expect(
            decodeError(
                #"{"kind":"retry","name":"r","attempts":1000,"children":[{"kind":"work","name":"w","steps":100}]}"#)
                == nil)
    }

    @Test func retryAttemptsAreNamedAttemptKOfN() throws {
        let text = #"{"kind":"retry","name":"r","attempts":3,"children":[{"kind":"work","name":"fetch","fail":true}]}"#
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: scenario, seed: 1)
        session.runToEnd()
        let snap = session.graph.snapshot()
        let names = snap[session.rootID]!.children.map { snap[$0]!.name }
        #expect(names == ["fetch (attempt 1/3)", "fetch (attempt 2/3)", "fetch (attempt 3/3)"])
    }

    @Test func compositeRetryAttemptsAreNamedAttemptKOfN() throws {
        let text =
            #"{"kind":"retry","name":"r","attempts":3,"children":[{"kind":"sequential","name":"batch","children":[{"kind":"work","name":"fetch","fail":true}]}]}"#
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: scenario, seed: 1)
        session.runToEnd()
        let snap = session.graph.snapshot()
        let attempts = snap[session.rootID]!.children
        #expect(
            attempts.map { snap[$0]!.name } == ["batch (attempt 1/3)", "batch (attempt 2/3)", "batch (attempt 3/3)"])
        #expect(attempts.map { snap[snap[$0]!.children[0]]!.name } == ["fetch", "fetch", "fetch"])
    }

    @Test func syntaxErrorsGiveFileLineColumn() {
        #expect(
            decodeError("{\n  \"kind\": \"work\",\n  \"name\": \"a\",\n}") == "s.json:4:1: trailing comma before '}'")
        #expect(decodeError("{\"kind\": \"work\" // c\n}") == "s.json:1:17: comments are not allowed in JSON")
        #expect(
            decodeError("{\"kind\":\"work\",\"name\":\"a\"} x") == "s.json:1:28: unexpected text after the JSON value")
        #expect(
            decodeError("{\"kind\":\"work\",\"name\":\"a\",\"name\":\"b\"}") == "s.json:1:27: duplicate field \"name\"")
        #expect(decodeError("[1,") == "s.json:1:4: unexpected end of file, expected a value")
        #expect(decodeError(String(repeating: "[", count: 10000)) == "s.json:1:257: nesting deeper than 256")
    }

    @Test func duplicateFieldsAreFoundInSmallAndLargeObjects() throws {
        // Up to 16 members the parser looks along them; past that it keeps a set.
        let keys = (1...20).map { "\"k\($0)\":\($0)" }
        let big = "{" + keys.joined(separator: ",") + "}"
        guard case .object(let members) = try JSONParser.parse(Array(big.utf8)).value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == (1...20).map { "k\($0)" })
        for at in [3, 17, 20] {
            let text = "{" + keys.joined(separator: ",") + ",\"k\(at)\":0}"
            #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
            do {
                _ = try JSONParser.parse(Array(text.utf8))
            } catch {
                #expect(error.message == "duplicate field \"k\(at)\"")
                #expect(error.position == JSONPosition(line: 1, column: big.count + 1))
            }
        }
    }

    @Test func invalidNodesNameTheirPath() {
        let kind = decodeError(#"{"kind":"sequential","name":"r","children":[{"kind":"wrok","name":"x"}]}"#)
        #expect(
            kind
                == "s.json:1:53: $.children[0]: unknown node kind \"wrok\" (expected one of: work, sequential, concurrent, allSettled, then, recover, retry, timeout, command)"
        )
        #expect(
            decodeError(#"{"kind":"work","name":"a","durration":1}"#)
                == "s.json:1:27: $ (work \"a\"): unknown field \"durration\" for a work node")
        #expect(
            decodeError(#"{"kind":"work","name":"a","weight":-1}"#)
                == "s.json:1:36: $ (work \"a\"): \"weight\" must be >= 0 and <= 1000000000, not -1")
        #expect(
            decodeError(#"{"kind":"work","name":"a","duration":-2}"#)?.contains("\"duration\" must be >= 0") == true)
        #expect(
            decodeError(#"{"kind":"retry","name":"r","attempts":0,"children":[{"kind":"work","name":"a"}]}"#)
                == "s.json:1:39: $ (retry \"r\"): \"attempts\" must be between 1 and 1000, not 0")
        #expect(
            decodeError(#"{"kind":"then","name":"t","children":[{"kind":"work","name":"a"}]}"#)
                == "s.json:1:38: $ (then \"t\"): a then node needs exactly two children, not 1")
        #expect(
            decodeError(#"{"kind":"timeout","name":"t","children":[{"kind":"work","name":"a"}]}"#)
                == "s.json:1:1: $ (timeout \"t\"): a timeout node needs \"seconds\"")
        #expect(
            decodeError(#"{"kind":"work","name":"a","steps":1.5}"#)
                == "s.json:1:35: $ (work \"a\"): \"steps\" must be an integer")
        #expect(
            decodeError(#"{"kind":"work","name":"a","allowFailure":1}"#)
                == "s.json:1:42: $ (work \"a\"): \"allowFailure\" must be true or false, not a number")
        #expect(decodeError(#"{"kind":"work","name":"a","allowFailure":true}"#) == nil)
        #expect(decodeError(#"{"kind":"work"}"#) == "s.json:1:1: $: missing \"name\"")
        #expect(decodeError(#"[]"#) == "s.json:1:1: $: a scenario is one JSON object (the root node), not an array")
        #expect(
            decodeError(
                #"{"kind":"concurrent","name":"c","children":[{"kind":"work","name":"a","repeat":100000,"steps":1},{"kind":"concurrent","name":"b","repeat":100000,"children":[{"kind":"work","name":"x","repeat":100}]}]}"#
            )?
            .contains("expands to more than 1000000 nodes") == true)
    }

    @Test func repeatExpandsToNumberedCopies() throws {
        let s = try ScenarioDecoder.decode(
            Array(
                #"{"kind":"concurrent","name":"c","children":[{"kind":"work","name":"job","repeat":3,"duration":2}]}"#
                    .utf8),
            file: "f", name: "f")
        #expect(s.root.children.map(\.name) == ["job 1", "job 2", "job 3"])
        #expect(s.root.children.allSatisfy { $0.duration == 2 })
    }

    @Test func workReportsStepsWithPhasesThenSucceeds() throws {
        let s = try ScenarioDecoder.decode(
            Array(#"{"kind":"work","name":"w","duration":2,"steps":4,"phases":["A","B"]}"#.utf8), file: "f", name: "f")
        let session = try ScenarioSession(scenario: s, seed: 1)
        let events = EventLog()
        let obs = session.graph.observe { events.append($0) }
        session.runToEnd()
        obs.cancel()
        let lines = events.all.map { e -> String in
            switch e.change {
            case .progress(_, let p): return "\(e.time) \(p.fraction) \(p.info ?? "-")"
            case .stateChanged(_, let state, let failed, _): return "\(e.time) \(state)\(failed ? " failed" : "")"
            default: return "\(e.time) other"
            }
        }
        #expect(lines == ["0.0 executing", "0.5 0.25 A", "1.0 0.5 A", "1.5 0.75 B", "2.0 1.0 B", "2.0 completed"])
    }

    @Test func failAtFailsEarlyAndSeedsDecideProbabilities() throws {
        let s = try ScenarioDecoder.decode(
            Array(#"{"kind":"work","name":"w","duration":4,"steps":4,"failAt":2.5,"message":"boom"}"#.utf8), file: "f",
            name: "f")
        let session = try ScenarioSession(scenario: s, seed: 1)
        session.runToEnd()
        let node = session.graph.snapshot()[session.rootID]!
        #expect(node.failed && node.message == "boom" && node.progress.fraction == 0.5)
        #expect(session.clock.now == 2.5)
        // A 50% coin per seed: both outcomes appear, and the same seed always agrees.
        let coin = try ScenarioDecoder.decode(
            Array(#"{"kind":"work","name":"w","failProbability":0.5}"#.utf8), file: "f", name: "f")
        var outcomes = Set<Bool>()
        for seed in 0..<20 as Range<UInt64> {
            let a = try ScenarioSession(scenario: coin, seed: seed)
            a.runToEnd()
            let b = try ScenarioSession(scenario: coin, seed: seed)
            b.runToEnd()
            let fa = a.graph.snapshot()[a.rootID]!.failed
            #expect(fa == b.graph.snapshot()[b.rootID]!.failed)
            outcomes.insert(fa)
        }
        #expect(outcomes.count == 2)
    }
}

/// Collects events from an observer.
final class EventLog: @unchecked Sendable {
    private let lock = NSLockish()
    private var events: [GraphEvent] = []
    func append(_ e: GraphEvent) { lock.run { events.append(e) } }
    var all: [GraphEvent] { lock.run { events } }
}

final class NSLockish: Sendable {
    private let m = Mutex(())
    func run<T>(_ body: () -> T) -> T { m.withLock { _ in body() } }
}

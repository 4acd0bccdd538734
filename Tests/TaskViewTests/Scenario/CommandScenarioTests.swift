import Dispatch
import Foundation
import TaskGraph
import TestSupport
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work on a Dispatch thread: commands need the Swift concurrency pool, which a
/// test blocking on it would starve.
func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { c in DispatchQueue.global().async { c.resume(returning: body()) } }
}

final class Lines: @unchecked Sendable { // written by one thread, read after it ended
    var all: [String] = []
}

/// `command` nodes in scenario files (docs/taskview.md "Command nodes").
@Suite(.timeLimit(.minutes(5))) struct CommandScenarioTests {
    @Test func badCommandNodesAreErrorsNamingTheNode() {
        let wrap = { (node: String) in #"{"kind":"sequential","name":"r","children":[\#(node)]}"# }
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":3}"#))
                == "s.json:1:80: $.children[0] (command \"c\"): \"run\" must be a non-empty string or a non-empty array of strings, not a number"
        )
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":[]}"#))
                == "s.json:1:80: $.children[0] (command \"c\"): \"run\" must be a non-empty string or a non-empty array of strings, not an empty array"
        )
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":["ls",1]}"#))
                == "s.json:1:86: $.children[0] (command \"c\"): \"run\" must be a non-empty string or a non-empty array of strings (found a number)"
        )
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","shell":true}"#))
                == "s.json:1:85: $.children[0] (command \"c\"): unknown field \"shell\" for a command node")
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c"}"#))
                == "s.json:1:45: $.children[0] (command \"c\"): a command node needs \"run\" (a string for /bin/sh -c, or an array of strings)"
        )
        let regex = decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","progress":"(\\d+"}"#))
        #expect(
            regex?.hasPrefix(
                "s.json:1:96: $.children[0] (command \"c\"): \"progress\": invalid progress pattern \"(\\d+\"") == true)
        // A pattern that cannot be matched in linear time is refused before anything runs.
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","progress":"(a)\\1"}"#))
                == "s.json:1:96: $.children[0] (command \"c\"): \"progress\": invalid progress pattern \"(a)\\1\": backreferences are not supported"
        )
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","progress":"\\d+"}"#))?
                .hasSuffix("needs one capture group (percent) or two (N of M), has 0") == true)
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","cwd":"/no/such/dir"}"#))
                == "s.json:1:91: $.children[0] (command \"c\"): \"cwd\" \"/no/such/dir\" is not an existing directory")
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","env":{"A":1}}"#))
                == "s.json:1:96: $.children[0] (command \"c\"): \"env\" values must be strings (\"A\" is a number)")
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","grace":-1}"#))
                == "s.json:1:93: $.children[0] (command \"c\"): \"grace\" must be >= 0 and <= 3600, not -1")
        #expect(
            decodeError(wrap(#"{"kind":"command","name":"c","run":"ls","children":[]}"#))
                == "s.json:1:85: $.children[0] (command \"c\"): unknown field \"children\" for a command node")
    }

    @Test func relativeCwdIsResolvedAgainstTheScenarioFile() throws {
        let tmp = TemporaryDirectory("taskview-cmd")
        defer { tmp.remove() }
        let dir = tmp.path
        #expect(mkdir(dir + "/sub", 0o755) == 0)
        let path = dir + "/s.json"
        let text =
            #"{"kind":"command","name":"c","run":["pwd"],"cwd":"sub","env":{"X":"1"},"progress":"(\\d+)%","grace":0.5,"weight":2}"#
        let f = fopen(path, "w")
        fputs(text, f)
        fclose(f)
        let s = try ScenarioLoader.file(path)
        #expect(s.root.cwd == dir + "/sub")
        #expect(s.root.run == .argv(["pwd"]))
        #expect(s.root.env == ["X": "1"])
        #expect(s.root.progress == #"(\d+)%"#)
        #expect(s.root.grace == 0.5)
        #expect(s.root.weight == 2)
        #expect(s.runsCommands)
        // From the scenario's directory elsewhere, the same relative cwd does not exist.
        #expect(throws: ScenarioError.self) { try ScenarioDecoder.decode(Array(text.utf8), file: "x.json", name: "x") }
    }

    @Test func aCommandWithoutCwdRunsInTheScenarioFilesDirectory() throws {
        let tmp = TemporaryDirectory("taskview-cmd")
        defer { tmp.remove() }
        let dir = tmp.path
        #expect(mkdir(dir + "/ci", 0o755) == 0)
        let text =
            #"{"kind":"sequential","name":"p","children":[{"kind":"command","name":"a","run":"pwd"},"#
            + #"{"kind":"command","name":"b","run":"pwd","cwd":"/"}]}"#
        let f = fopen(dir + "/ci/pipeline.json", "w")
        fputs(text, f)
        fclose(f)
        // Named by a relative path from elsewhere: still the file's own directory, absolute.
        let saved = getcwd(nil, 0)!
        defer {
            chdir(saved)
            free(saved)
        }
        #expect(chdir(dir) == 0)
        let s = try ScenarioLoader.file("ci/pipeline.json")
        #expect(s.root.children.map(\.cwd) == [dir + "/ci", "/"])
        // A demo keeps the current directory.
        #expect(try ScenarioLoader.demo("commands").root.children[0].cwd == nil)
    }

    @Test func scenarioWithCommandsRunsOnRealTimeAndRecordsOutput() async throws {
        let text = #"""
            {"kind":"sequential","name":"p","children":[
              {"kind":"work","name":"w","duration":0.1,"steps":2},
              {"kind":"command","name":"c","run":"echo \"seed $TASKVIEW_SEED\"; echo '[2/4]'","progress":"\\[(\\d+)/(\\d+)\\]"}
            ]}
            """#
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: scenario, seed: 42)
        #expect(session.virtualClock == nil)
        let events = EventLog()
        let obs = session.graph.observe { events.append($0) }
        defer { obs.cancel() }
        await offPool { session.runToEnd() }
        #expect(session.root.state == .completed)
        let lines = events.all.compactMap { e -> String? in
            if case .output(_, .stdout, let t) = e.change { return t } else { return nil }
        }
        #expect(lines == ["seed 42", "[2/4]"])
        let progress = events.all.compactMap { e -> TaskProgress? in
            if case .progress(let id, let p) = e.change, id.rawValue == 1 { return p } else { return nil }
        }
        #expect(progress.contains(TaskProgress(0.5, info: "[2/4]")))
    }

    @Test func jobsLimitHowManyCommandsRunAtOnce() async throws {
        let tmp = TemporaryDirectory("taskview-jobs")
        defer { tmp.remove() }
        let dir = tmp.path
        // Each command counts the commands running beside it (itself included).
        let step = #"touch run.$$; ls run.* | wc -l >> counts; sleep 0.3; rm run.$$"#
        let kids = (1...6).map { #"{"kind":"command","name":"c\#($0)","run":"\#(step)","cwd":"\#(dir)"}"# }
        let text = #"{"kind":"concurrent","name":"all","children":["# + kids.joined(separator: ",") + "]}"
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let session = try ScenarioSession(scenario: scenario, seed: 0, jobs: 2)
        let events = EventLog()
        let (snapshot, obs) = session.graph.snapshotAndObserve { events.append($0) }
        defer { obs.cancel() }
        await offPool { session.runToEnd() }
        #expect(session.root.state == .completed)
        let counts = try String(contentsOfFile: dir + "/counts", encoding: .utf8)
            .split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(counts.count == 6)
        #expect(counts.max() == 2)
        let queued = events.all.filter { e in
            if case .progress(_, let p) = e.change { return p.info == "queued" } else { return false }
        }
        #expect(queued.count == 4)
        // Each of them says when it starts (progress 0, no info): the dashboard's time-based
        // progress and ETA count from there, not from the wait.
        var tree = TreeModel(snapshot: snapshot)
        tree.absorb(events.all)
        for e in queued {
            let node = try #require(e.change.nodeID)
            let started = events.all.first { s in
                guard case .progress(node, let p) = s.change, s.sequence > e.sequence else { return false }
                return p == TaskProgress(0)
            }
            let id = node.rawValue
            #expect(started != nil)
            #expect(tree.runningSince[id] == started?.time)
            #expect((tree.runningSince[id] ?? 0) > tree[id].startedAt)
        }
    }

    @Test func headlessPrintsOutputLinesOnlyWhenAsked() async throws {
        let text =
            #"{"kind":"command","name":"say \u001b[31m","run":"echo 'hi \u001b[2J there'; echo oops >&2; exit 3"}"#
        for output in [false, true] {
            let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
            let session = try ScenarioSession(scenario: scenario, seed: 0)
            let out = Lines()
            let outcome = await offPool {
                let o = HeadlessRunner.run(
                    graph: session.graph, clock: session.clock, root: session.rootID,
                    output: output, print: { out.all.append($0) }, start: { session.start() })
                session.waitForCommands()
                return o
            }
            let lines = out.all
            #expect(outcome == .failed)
            let shown = lines.filter { $0.contains(" | ") }.map { $0.drop { $0 != "]" } }
            if output {
                #expect(
                    shown == ["] #0 say ?[31m | hi ?[2J there", "] #0 say ?[31m | oops"]
                        || shown == ["] #0 say ?[31m | oops", "] #0 say ?[31m | hi ?[2J there"])
            } else {
                #expect(shown.isEmpty)
            }
            #expect(lines.contains { $0.hasSuffix("#0 say ?[31m: failed: exit status 3: oops") })
        }
    }

    @Test func aRecordedRunWithCommandsReplaysWithTheLiveStateLineTimes() async throws {
        // Commands run on the real clock: the log counts from when recording began, and so
        // do the live lines (`origin`), so stdout is the same for the run and its replay.
        let text =
            #"{"kind":"sequential","name":"ci","children":[{"kind":"command","name":"one","run":"echo hi"},"#
            + #"{"kind":"command","name":"two","run":"sleep 0.05; echo done"}]}"#
        let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", name: "s")
        let path = temporaryLogPath("command-times")
        defer { unlink(path) }
        let session = try ScenarioSession(scenario: scenario, seed: 0, recordTo: path)
        let out = Lines()
        await offPool {
            _ = HeadlessRunner.run(
                graph: session.graph, clock: session.clock, root: session.rootID, origin: session.origin,
                print: { out.all.append($0) }, start: { session.start() })
            session.waitForCommands()
            session.finishRecording()
        }
        let live = out.all.filter { $0.hasPrefix("[") }
        let replayed = ReplaySource.headlessLines(try LogReader.load(path: path)).filter { $0.hasPrefix("[") }
        #expect(live.count == 6)
        #expect(live == replayed)
    }
}

import TaskGraph
import Testing

@testable import TaskGraphProcess

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.minutes(5))) struct CommandTests {
    typealias Cmd = GraphTask<CommandOutput, CommandError>

    @Test func successGivesOutputTailsAndOutputEvents() async throws {
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(shell: "echo hi; echo oops >&2; echo there", graph: g)
        let r = try #require(await outcome(t))
        let out = try r.get()
        #expect(out.status == 0)
        #expect(out.stdout == "hi\nthere\n")
        #expect(out.stderr == "oops\n")
        #expect(t.name == "echo hi; echo oops >&2; echo there")
        #expect(t.kind == NodeKind.command) // viewers show it as a command
        #expect(g.snapshot()[t.id]?.kind == "command")
        let lines = events.output(t.id)
        #expect(lines.filter { $0.0 == .stdout }.map(\.1) == ["hi", "there"])
        #expect(lines.filter { $0.0 == .stderr }.map(\.1) == ["oops"])
        #expect(t.state == .completed)
    }

    @Test func argvRunsWithoutAShellInTheWorkingDirectoryWithEnvironment() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let t = Cmd.command(
            ["sh", "-c", "pwd; echo \"$GREETING\""], graph: Graph(), workingDirectory: dir,
            environment: ["GREETING": "hello world"])
        let out = try #require(await outcome(t)).get()
        #expect(out.stdout == "\(dir)\nhello world\n")
        #expect(t.name == "sh -c 'pwd; echo \"$GREETING\"'")
    }

    @Test func nonZeroExitNamesTheStatusAndLastStderrLine() async throws {
        let t = Cmd.command(shell: "echo first >&2; echo 'last words' >&2; echo out; exit 3", graph: Graph())
        let r = try #require(await outcome(t))
        guard case .failure(let e) = r else {
            Issue.record("succeeded")
            return
        }
        #expect(e.message == "exit status 3: last words")
        #expect(e.status == 3)
        #expect(e.signal == nil)
        #expect(e.description == "exit status 3: last words")
        let plain = try #require(await outcome(Cmd.command(shell: "exit 1", graph: Graph())))
        #expect(plain.failureMessage == "exit status 1")
    }

    @Test func killedBySignalNamesIt() async throws {
        let r = try #require(await outcome(Cmd.command(shell: "kill -KILL $$", graph: Graph())))
        guard case .failure(let e) = r else {
            Issue.record("succeeded")
            return
        }
        #expect(e.message == "killed by SIGKILL")
        #expect(e.signal == 9)
        #expect(e.status == nil)
        let term = try #require(await outcome(Cmd.command(shell: "kill -TERM $$", graph: Graph())))
        #expect(term.failureMessage == "killed by SIGTERM")
    }

    @Test func cannotRunFailsAtOnce() async throws {
        let missing = try #require(await outcome(Cmd.command(["no-such-command-taskgraph"], graph: Graph())))
        #expect(missing.failureMessage == "cannot run: no-such-command-taskgraph: command not found")
        let path = try #require(await outcome(Cmd.command(["/nonexistent/tool"], graph: Graph())))
        #expect(path.failureMessage?.hasPrefix("cannot run: /nonexistent/tool: ") == true)
        #expect(path.failureMessage == "cannot run: /nonexistent/tool: No such file or directory")
        let dir = try #require(await outcome(Cmd.command(["/tmp"], graph: Graph())))
        #expect(dir.failureMessage == "cannot run: /tmp: is a directory")
        let empty = try #require(await outcome(Cmd.command([], graph: Graph())))
        #expect(empty.failureMessage == "cannot run: empty command")
        let cwd = try #require(
            await outcome(Cmd.command(["true"], graph: Graph(), workingDirectory: "/nonexistent-dir")))
        #expect(cwd.failureMessage == "cannot run: working directory /nonexistent-dir: No such file or directory")
        if case .failure(let e) = missing { #expect(e.status == nil && e.signal == nil) }
    }

    /// A file that is not executable is not "command not found", by path or by name in PATH.
    @Test func aNameInPathThatIsNotExecutableSaysSo() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let fd = open("\(dir)/tool-taskgraph", O_CREAT | O_WRONLY, 0o644)
        close(fd)
        let notExec = try #require(await outcome(Cmd.command(["\(dir)/tool-taskgraph"], graph: Graph())))
        #expect(notExec.failureMessage == "cannot run: \(dir)/tool-taskgraph: not executable (permission denied)")
        let r = try #require(
            await outcome(
                Cmd.command(["tool-taskgraph"], graph: Graph(), environment: ["PATH": "/nonexistent:\(dir)"])))
        #expect(
            r.failureMessage == "cannot run: tool-taskgraph: not executable (permission denied): \(dir)/tool-taskgraph")
    }

    @Test func progressPatternWithOneGroupIsPercent() async throws {
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(
            shell: "echo '  12%'; sleep 0.2; echo 'at 50% now'; sleep 0.2; echo done", graph: g,
            progress: CommandProgress(pattern: #"(\d+)%"#))
        _ = try #require(await outcome(t)).get()
        // Lines read together report once (the last); a slow reader may merge any of them.
        let p = events.progress(t.id)
        #expect(
            p.allSatisfy {
                [
                    TaskProgress(0.12, info: "  12%"), TaskProgress(0.5, info: "at 50% now"),
                    TaskProgress(0.5, info: "done"),
                ].contains($0)
            })
        // A line that does not match keeps the fraction and becomes the info.
        #expect(p.last == TaskProgress(0.5, info: "done"))
        let m = try ProgressMatcher(#"(\d+)%"#)
        #expect(m.fraction(of: "  12%") == 0.12)
        #expect(m.fraction(of: "at 50% now") == 0.5)
        #expect(m.fraction(of: "250%") == 1)
        #expect(m.fraction(of: "done") == nil)
    }

    @Test func progressPatternWithTwoGroupsIsNOfM() async throws {
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(
            shell: "echo '[1/4] a'; sleep 0.2; echo '[3/4] c'; sleep 0.2; echo '[9/0] bad'", graph: g,
            progress: CommandProgress(pattern: #"\[(\d+)/(\d+)\]"#))
        _ = try #require(await outcome(t)).get()
        let p = events.progress(t.id)
        #expect(
            p.allSatisfy {
                [
                    TaskProgress(0.25, info: "[1/4] a"), TaskProgress(0.75, info: "[3/4] c"),
                    TaskProgress(0.75, info: "[9/0] bad"),
                ].contains($0)
            })
        #expect(p.last == TaskProgress(0.75, info: "[9/0] bad"))
        let m = try ProgressMatcher(#"\[(\d+)/(\d+)\]"#)
        #expect(m.fraction(of: "[1/4] a") == 0.25)
        #expect(m.fraction(of: "[3/4] c") == 0.75)
        #expect(m.fraction(of: "[9/0] bad") == nil)
    }

    @Test func invalidPatternsAreErrorsNotTraps() async throws {
        #expect(throws: CommandProgress.InvalidPattern.self) { try CommandProgress.validate("([0-9]+") }
        #expect(throws: CommandProgress.InvalidPattern.self) { try CommandProgress.validate("no groups") }
        #expect(throws: CommandProgress.InvalidPattern.self) { try CommandProgress.validate("(a)(b)(c)") }
        try CommandProgress.validate(#"(\d+)%"#)
        try CommandProgress.validate(#"(\d+) of (\d+)"#)
        let r = try #require(
            await outcome(Cmd.command(["true"], graph: Graph(), progress: CommandProgress(pattern: "("))))
        #expect(r.failureMessage?.hasPrefix("cannot run: invalid progress pattern \"(\"") == true)
    }

    @Test func longLineIsCutAt4KiBAndInvalidUTF8Replaced() async throws {
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(
            shell: "head -c 10000000 /dev/zero | tr '\\000' a; echo; printf 'a\\377b\\n'; printf 'tail'",
            graph: g)
        let out = try #require(await outcome(t)).get()
        let lines = events.output(t.id).map(\.1)
        #expect(lines.count == 3)
        #expect(lines.first == String(repeating: "a", count: 4096))
        #expect(lines.dropFirst().first == "a\u{FFFD}b")
        #expect(lines.last == "tail")
        #expect(out.stdout.utf8.count <= CommandOutput.tailBytes)
    }

    @Test func lotsOfOutputOnBothStreamsNeverBlocks() async throws {
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(shell: "seq 1 200000; seq 1 200000 >&2; echo end", graph: g)
        let out = try #require(await outcome(t)).get()
        #expect(events.output(t.id).count == 400_001)
        #expect(out.stdout.hasSuffix("200000\nend\n"))
        #expect(out.stdout.utf8.count <= CommandOutput.tailBytes)
        #expect(out.stderr.utf8.count <= CommandOutput.tailBytes)
        #expect(t.currentProgress.info == "end" || t.currentProgress.info == "200000")
    }
}

extension Result where Failure == CommandError {
    var failureMessage: String? {
        if case .failure(let e) = self { return e.message }
        return nil
    }
}

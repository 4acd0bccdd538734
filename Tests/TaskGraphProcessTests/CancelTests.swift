import TaskGraph
import Testing

@testable import TaskGraphProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Cancel stops every process of a command: SIGTERM to the group, SIGKILL after grace.
@Suite(.timeLimit(.minutes(5))) struct CancelTests {
    typealias Cmd = GraphTask<CommandOutput, CommandError>

    @Test func cancelKillsTheWholeGroupIncludingGrandchildren() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let t = Cmd.command(
            shell: "echo $$ > \(dir)/p1; sh -c 'echo $$ > \(dir)/p2; sleep 1000' & sleep 1000; wait",
            graph: Graph(), grace: 5)
        t.execute()
        let p1 = try #require(await pid(in: "\(dir)/p1"))
        let p2 = try #require(await pid(in: "\(dir)/p2"))
        #expect(isRunning(p1) && isRunning(p2))
        t.cancel()
        #expect(t.state == .cancelled) // at once, not when the processes are gone
        #expect(await waitGone(p1))
        #expect(await waitGone(p2))

    }

    @Test func childThatIgnoresTermIsKilledAfterGrace() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(
            shell: "trap '' TERM; echo $$ > \(dir)/p; while :; do sleep 0.05; done",
            graph: g, grace: 2)
        t.execute()
        let p = try #require(await pid(in: "\(dir)/p"))
        let cancelledAt = monotonicSeconds()
        t.cancel()
        #expect(await waitGone(p))
        // SIGTERM is ignored: it lives until the grace ends (measured, not sampled after a
        // sleep, which a starved pool may wake only after the grace).
        #expect(monotonicSeconds() - cancelledAt >= 2)
        #expect(t.state == .cancelled)
        // The node says so: it ignored its cancel (docs/taskview.md, "Warnings"), and it stays.
        #expect(
            events.all.map(\.change).filter { if case .warn = $0 { true } else { false } }
                == [.warn(id: t.id, rule: WarningRule.ignoresCancel, text: "ignores cancel: killed after its 2s grace")]
        )
    }

    @Test func aCommandThatEndsOnTermIsNotWarned() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let g = Graph()
        let events = Events(g)
        let t = Cmd.command(shell: "echo $$ > \(dir)/p; exec sleep 1000", graph: g, grace: 0.3)
        t.execute()
        let p = try #require(await pid(in: "\(dir)/p"))
        t.cancel()
        #expect(await waitGone(p))
        try await Task.sleep(for: .milliseconds(600)) // past the grace
        #expect(!events.all.contains { if case .warn = $0.change { true } else { false } })
    }

    @Test func cancelBeforeItStartsRunsNothing() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let t = Cmd.command(shell: "echo $$ > \(dir)/p; sleep 1000", graph: Graph())
        t.cancel()
        t.execute()
        #expect(t.state == .cancelled)
        try await Task.sleep(for: .milliseconds(300))
        #expect(await pid(in: "\(dir)/p", timeout: 0.1, minPolls: 5) == nil)
    }

    @Test func registryKnowsCommandLinePidAndExit() async throws {
        let g = Graph()
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let t = Cmd.command(shell: "echo $$ > \(dir)/p; sleep 1000", graph: g, workingDirectory: dir)
        t.execute()
        let p = try #require(await pid(in: "\(dir)/p"))
        // The child can write its pid file before the spawning side has noted the pid.
        var info = CommandRegistry.shared.info(graph: g, node: t.id)
        let noted = monotonicSeconds() + 30
        while info?.pid == nil && monotonicSeconds() < noted {
            try await Task.sleep(for: .milliseconds(20))
            info = CommandRegistry.shared.info(graph: g, node: t.id)
        }
        #expect(info?.commandLine == "echo $$ > \(dir)/p; sleep 1000")
        #expect(info?.workingDirectory == dir)
        #expect(info?.pid == p)
        #expect(info?.exit == nil)
        t.cancel()
        #expect(await waitGone(p))
        let deadline = monotonicSeconds() + 30
        repeat {
            info = CommandRegistry.shared.info(graph: g, node: t.id)
            if info?.exit != nil { break }
            try await Task.sleep(for: .milliseconds(20))
        } while monotonicSeconds() < deadline
        #expect(info?.exit == "killed by SIGTERM")
        #expect(info?.pid == nil)
    }

    @Test func timeoutCancelsTheCommand() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let g = Graph()
        let t = Cmd.command(shell: "echo $$ > \(dir)/p; sleep 1000", graph: g).timeout(seconds: 3)
        t.execute()
        let p = try #require(await pid(in: "\(dir)/p"))
        #expect(await waitGone(p))
    }
}

/// Daemons leave the process group (`setsid`): they carry the command's mark in their
/// environment, and end with their node.
@Suite(.timeLimit(.minutes(5))) struct DaemonTests {
    typealias Cmd = GraphTask<CommandOutput, CommandError>

    @Test func aDaemonEndsWhenItsCommandEnds() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let t = Cmd.command(
            shell: "setsid -f sh -c 'echo $$ > \(dir)/d; exec sleep 300'; sleep 0.2", graph: Graph(), grace: 1)
        t.execute()
        let d = try #require(await pid(in: "\(dir)/d"))
        let result = await outcome(t)
        #expect((try? result?.get())?.status == 0)
        #expect(await waitGone(d))
    }

    @Test func aDaemonEndsWhenItsCommandIsCancelled() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let t = Cmd.command(
            shell: "setsid sh -c 'echo $$ > \(dir)/d; exec sleep 300' & echo $$ > \(dir)/p; sleep 1000; wait",
            graph: Graph(), grace: 1)
        t.execute()
        let d = try #require(await pid(in: "\(dir)/d"))
        let p = try #require(await pid(in: "\(dir)/p"))
        t.cancel()
        #expect(await waitGone(p))
        #expect(await waitGone(d))
    }

    @Test func theMarkIsAppendedToAnInheritedOne() async throws {
        let t = Cmd.command(
            shell: "echo \"$TASKGRAPH_COMMAND\"", graph: Graph(), environment: ["TASKGRAPH_COMMAND": "outer:1"])
        let out = try await t.value
        let words = out.stdout.split(separator: "\n").first.map { $0.split(separator: " ") } ?? []
        #expect(words.count == 2)
        #expect(words.first == "outer:1")
        #expect(words.last?.hasPrefix(CommandMarker.sessionPrefix) == true)
    }
}

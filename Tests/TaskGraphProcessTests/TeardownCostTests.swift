import TaskGraph
import Testing

@testable import TaskGraphProcess

#if canImport(Glibc)
    import Glibc
#endif

/// What makes short commands cheap keeps every teardown guarantee: names looked up in PATH
/// before spawning, start times that let a sweep skip old processes, one stray sweeper for
/// many runs, and a job slot freed once the command's own group is empty.
@Suite(.timeLimit(.minutes(5))) struct TeardownCostTests {
    typealias Cmd = GraphTask<CommandOutput, CommandError>

    @Test func aNameIsFoundInTheFirstAbsoluteDirectoryWhereItIsExecutable() throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        for sub in ["a", "b", "c"] { #expect(mkdir("\(dir)/\(sub)", 0o755) == 0) }
        #expect(creat("\(dir)/a/tool", 0o644) >= 0) // not executable: skipped
        #expect(creat("\(dir)/b/tool", 0o755) >= 0)
        #expect(creat("\(dir)/c/tool", 0o755) >= 0)
        #expect(mkdir("\(dir)/a/dir", 0o755) == 0) // a directory: skipped
        #expect(creat("\(dir)/c/dir", 0o755) >= 0)
        let path = "relative::\(dir)/a:\(dir)/b/:\(dir)/c"
        #expect(ExecutableLookup.find("tool", path: path) == "\(dir)/b/tool")
        #expect(ExecutableLookup.find("dir", path: path) == "\(dir)/c/dir")
        #expect(ExecutableLookup.find("missing", path: path) == nil)
        #expect(ExecutableLookup.find("tool", path: nil) == nil)
        #expect(ExecutableLookup.find("tool", path: "") == nil)
        #expect(ExecutableLookup.find("b/tool", path: dir) == nil) // has a slash: not looked up
    }

    /// A name found once is remembered and checked with one `access` the next time; once
    /// that file is gone, the directories are searched again.
    @Test func aFoundNameIsRememberedUntilItsFileGoes() throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        for sub in ["a", "b"] { #expect(mkdir("\(dir)/\(sub)", 0o755) == 0) }
        #expect(creat("\(dir)/a/tool", 0o755) >= 0)
        #expect(creat("\(dir)/b/tool", 0o755) >= 0)
        let path = "\(dir)/a:\(dir)/b"
        #expect(ExecutableLookup.find("tool", path: path) == "\(dir)/a/tool")
        #expect(ExecutableLookup.find("tool", path: path) == "\(dir)/a/tool")
        #expect(unlink("\(dir)/a/tool") == 0)
        #expect(ExecutableLookup.find("tool", path: path) == "\(dir)/b/tool")
        #expect(unlink("\(dir)/b/tool") == 0)
        #expect(ExecutableLookup.find("tool", path: path) == nil)
    }

    /// A command's environment is this process's with the command's variables in place of
    /// (or added to) its own.
    @Test func theChildEnvironmentIsOursWithTheCommandsVariables() throws {
        let values = ChildEnvironment.values(["PATH": "/x:/y", "TASKGRAPH_TEST_NEW": "a=b"]).map {
            "\($0.key.rawValue)=\($0.value)"
        }
        #expect(values.filter { $0.hasPrefix("PATH=") } == ["PATH=/x:/y"])
        #expect(values.contains("TASKGRAPH_TEST_NEW=a=b"))
        let home = try #require(getenv("HOME").map { String(cString: $0) })
        #expect(values.contains("HOME=\(home)"))
        var count = 0
        while environ[count] != nil { count += 1 }
        #expect(values.count == count + 1) // PATH replaced, one variable added
        #expect(ChildEnvironment.values([:]).count == count) // the overrides were not kept
    }

    @Test func aNameInPathRunsWithItsPathAsArgvZero() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let script = "\(dir)/show-argv0"
        let fd = creat(script, 0o755)
        #expect(fd >= 0)
        let text = Array("#!/bin/sh\necho \"$0\"\n".utf8)
        #expect(write(fd, text, text.count) == text.count)
        close(fd)
        let t = Cmd.command(["show-argv0"], graph: Graph(), environment: ["PATH": "/nonexistent:\(dir):/usr/bin:/bin"])
        let out = try await t.value
        #expect(out.stdout == script + "\n")
    }

    @Test func startTimesComeFromProcStatAndNewProcessesStartAfterNow() throws {
        let me = try #require(ProcessTable.entry(getpid()))
        // Field 22 of /proc/self/stat, read another way: the fields after "(COMM) ".
        let text = try #require(readText("/proc/self/stat"))
        let fields = text[text.index(after: try #require(text.lastIndex(of: ")")))...].split(separator: " ")
        #expect(me.started == UInt64(fields[19]))
        #expect(me.started > 0)
        #expect(me.parent == getppid())
        let before = ProcessTable.ticksNow()
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("5"), nil]
        defer { for p in argv { free(p) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0)
        let child = try #require(ProcessTable.entry(pid))
        #expect(child.started >= before)
        #expect(child.parent == getpid())
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    @Test func daemonsOfManyCommandsThatEndTogetherAllEnd() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let graph = Graph()
        let tasks = (0..<12).map { i in
            Cmd.command(
                shell: "setsid -f sh -c 'echo $$ > \(dir)/d\(i); exec sleep 300'; sleep 0.2", name: "c\(i)",
                graph: graph, grace: 1)
        }
        let all = Cmd.concurrent(tasks, graph: graph)
        all.execute()
        var daemons: [pid_t] = []
        for i in 0..<12 { daemons.append(try #require(await pid(in: "\(dir)/d\(i)"))) }
        _ = try await all.value
        for d in daemons { #expect(await waitGone(d)) }
    }

    @Test func aSlotIsFreeOnceTheGroupIsEmptyWhileAStrayStillEnds() async throws {
        let dir = temporaryDirectory()
        defer { removeDirectory(dir) }
        let graph = Graph()
        let slots = CommandSlots(limit: 1)
        // The daemon ignores SIGTERM: only SIGKILL, after the 60 s grace, would end it.
        let first = Cmd.command(
            shell: "setsid -f sh -c 'trap \"\" TERM; echo $$ > \(dir)/d; exec sleep 300'; sleep 0.1",
            name: "first", graph: graph, grace: 60, slots: slots)
        first.execute()
        let d = try #require(await pid(in: "\(dir)/d"))
        // The first command holds the only slot now (or has ended): the second waits for it.
        let second = Cmd.command(["true"], name: "second", graph: graph, slots: slots)
        _ = try await second.value
        // It ran and ended while the first one's stray still lives: the slot did not wait.
        #expect(isRunning(d))
        #expect(first.state == .completed)
        #expect(CommandRegistry.shared.info(graph: graph, node: first.id)?.exit == "exit status 0")
        kill(d, SIGKILL)
        #expect(await waitGone(d))
    }
}

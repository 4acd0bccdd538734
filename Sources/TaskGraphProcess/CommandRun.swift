import Subprocess
import Synchronization
import TaskGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// One execution of a command node: spawns the process in its own session and process
/// group, reads stdout and stderr concurrently line by line into the node's progress and
/// `output` events, and on cancel signals the group (SIGTERM, then SIGKILL after `grace`).
/// It lives in a Swift task until every process of its group is gone.
final class CommandRun: Sendable {
    let spec: CommandSpec
    let graph: Graph
    let node: NodeID
    /// This run's mark (`CommandMarker`): its processes carry it in their environment.
    let marker = CommandMarker.newRun()
    private let report: @Sendable (TaskProgress) -> Void

    private struct State {
        var pid: pid_t = 0
        var cancelled = false
        /// The group is empty: no signal may be sent any more (its id may be reused).
        var gone = false
        var fraction = 0.0
        var killTimerStarted = false
        /// When the process was about to be spawned (`ProcessTable.ticksNow()`): every
        /// process with this run's mark started after it. 0 until then.
        var since: UInt64 = 0
        /// Its key in `UsageSampler` once spawned.
        var usageKey: Int?
    }
    private let state = Mutex(State())

    init(spec: CommandSpec, graph: Graph, node: NodeID, report: @escaping @Sendable (TaskProgress) -> Void) {
        self.spec = spec
        self.graph = graph
        self.node = node
        self.report = report
    }

    // MARK: - Cancel

    /// The node was cancelled: SIGTERM to the group now (or as soon as it exists), SIGKILL
    /// after `grace` seconds if anything is left. Safe from any thread, any number of times.
    func cancel() {
        let (pid, since): (pid_t, UInt64) = state.withLock { s in
            if s.cancelled { return (0, 0) }
            s.cancelled = true
            return (s.gone ? 0 : s.pid, s.since)
        }
        if pid > 0 { terminate(pid) }
        // Processes that left the group (setsid) get the same SIGTERM now; `StraySweeper`
        // finishes them once the command itself has ended. Nothing spawned yet (a queued
        // command): nothing carries the mark, no look at the process table.
        guard since > 0 else { return }
        let marker = self.marker
        Task.detached {
            for e in ProcessTeardown.marked(marker, since: since) where e.pid != pid { _ = kill(e.pid, SIGTERM) }
        }
    }

    private func terminate(_ pid: pid_t) {
        if spec.grace <= 0 {
            ProcessGroup.signal(pid, SIGKILL)
            return
        }
        ProcessGroup.signal(pid, SIGTERM)
        startKillTimer(pid)
    }

    private func startKillTimer(_ pid: pid_t) {
        let first = state.withLock { s in
            defer { s.killTimerStarted = true }
            return !s.killTimerStarted
        }
        guard first else { return }
        let grace = spec.grace
        Task.detached { [self] in
            try? await Task.sleep(for: .milliseconds(Int64((grace * 1000).rounded(.up))))
            let alive = state.withLock { !$0.gone }
            guard alive else { return }
            // It outlived its grace: said on its node (it stays: it is what happened). Only
            // when a member still runs: ended ones may wait to be reaped on a busy machine.
            if ProcessTable.all().contains(where: { $0.group == pid && !$0.zombie }) {
                graph.warn(node, rule: WarningRule.ignoresCancel, text: Self.killedText(grace: grace))
            }
            ProcessGroup.signal(pid, SIGKILL)
        }
    }

    /// `ignores cancel: killed after its 5s grace`.
    static func killedText(grace: Double) -> String {
        let g = grace == grace.rounded() && grace < 1e9 ? String(Int(grace)) : String(grace)
        return "ignores cancel: killed after its \(g)s grace"
    }

    // MARK: - Running

    /// Runs the command to its end and settles through `finish` (ignored by a cancelled
    /// node), then waits until the whole process group is gone (then calls `groupGone`: the
    /// command no longer holds a job slot) and every process with its mark.
    func run(
        finish: @escaping @Sendable (Result<CommandOutput, CommandError>) -> Void,
        groupGone: @Sendable () -> Void = {}
    ) async {
        let outcome = await spawnAndRead()
        // The usage's last report comes before the outcome, so whatever reads the settled
        // node (a report, a history) has it.
        if let key = state.withLock({ $0.usageKey }) { UsageSampler.shared.finish(key) }
        let exitText: String
        switch outcome {
        case .success(let o): exitText = "exit status \(o.status)"
        case .failure(let e): exitText = e.message
        }
        CommandRegistry.shared.update(graph: graph, node: node) {
            $0.pid = nil
            $0.exit = exitText
        }
        finish(outcome)
        let (pid, since) = state.withLock { ($0.pid, $0.since) }
        if pid > 0 {
            // Strays are looked for from now on, while the group is reaped.
            async let strays: Void = StraySweeper.shared.sweep(marker, since: since, grace: spec.grace)
            await reapGroup(pid)
            groupGone()
            await strays
        } else {
            groupGone() // nothing was spawned: no process carries the mark
        }
        CommandRegistry.shared.ended(graph: graph, node: node)
    }

    private func spawnAndRead() async -> Result<CommandOutput, CommandError> {
        guard let first = spec.arguments.first, !first.isEmpty else {
            return .failure(.cannotRun("empty command"))
        }
        var compiled: PatternProgram?
        if let p = spec.progress {
            do { compiled = try ProgressMatcher.compile(p.pattern) } catch {
                return .failure(.cannotRun(error.description))
            }
        }
        let program = compiled
        if let cwd = spec.workingDirectory, let problem = Self.directoryProblem(cwd) {
            return .failure(.cannotRun("working directory \(cwd): \(problem)"))
        }
        var env: [String: String] = [:]
        for (k, v) in spec.environment {
            guard !k.isEmpty, !k.contains("="), !k.contains("\0"), Environment.Key(rawValue: k) != nil else {
                return .failure(.cannotRun("invalid environment variable name \"\(k)\""))
            }
            env[k] = v
        }
        for (k, v) in CommandEnvironment.variables(graph: graph, node: node) where spec.environment[k] == nil {
            env[k] = v
        }
        let inherited =
            spec.environment[CommandMarker.variable] ?? getenv(CommandMarker.variable).map { String(cString: $0) }
        env[CommandMarker.variable] = CommandMarker.value(for: marker, inherited: inherited)
        let pathValue = spec.environment["PATH"] ?? getenv("PATH").map { String(cString: $0) }
        let executable: Executable =
            first.contains("/")
            ? .path(FilePath(first))
            : ExecutableLookup.find(first, path: pathValue).map { .path(FilePath($0)) } ?? .name(first)
        var options = PlatformOptions()
        // A new session makes the child lead a new process group (setsid: its pgid is its
        // pid): signals to the group reach its whole tree and never this process. No
        // `processGroupID` on top: asking for both makes swift-subprocess fork the whole
        // program instead of using posix_spawn (vfork-like), several times dearer per command.
        options.createSession = true
        let tails = Tails()
        state.withLock { $0.since = ProcessTable.ticksNow() }
        do {
            let result = try await Subprocess.run(
                executable, arguments: Arguments(Array(spec.arguments.dropFirst())),
                environment: ChildEnvironment.environment(env),
                workingDirectory: spec.workingDirectory.map { FilePath($0) },
                platformOptions: options, input: .none, output: .sequence, error: .sequence
            ) { execution in
                self.started(execution.processIdentifier.value)
                let out = execution.standardOutput
                let err = execution.standardError
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.drain(out, .stdout, program: program, tails: tails) }
                    group.addTask { await self.drain(err, .stderr, program: program, tails: tails) }
                }
            }
            let (out, err, lastErr) = tails.state.withLock { ($0.out.text, $0.err.text, $0.err.last) }
            switch result.terminationStatus {
            case .exited(let code):
                if code == 0 { return .success(CommandOutput(status: 0, stdout: out, stderr: err)) }
                return .failure(.exited(code, lastStderrLine: lastErr))
            case .signaled(let signal):
                return .failure(.killed(by: signal))
            }
        } catch let error as SubprocessError {
            return .failure(.cannotRun(Self.reason(error, executable: first, path: pathValue)))
        } catch {
            return .failure(.cannotRun("\(error)"))
        }
    }

    private func started(_ pid: pid_t) {
        let key = UsageSampler.shared.start(graph: graph, node: node, pid: pid, word: marker)
        let cancelled = state.withLock { s in
            s.pid = pid
            s.usageKey = key
            return s.cancelled
        }
        CommandRegistry.shared.update(graph: graph, node: node) {
            $0.pid = pid
            $0.startedPID = pid
        }
        ProcessTeardown.noteGroup(pid, started: true)
        if cancelled { terminate(pid) }
    }

    /// Reads one stream to its end, line by line.
    private func drain(
        _ sequence: SubprocessOutputSequence, _ stream: OutputStreamName,
        program: PatternProgram?, tails: Tails
    ) async {
        var splitter = LineSplitter()
        let matcher = program.map { ProgressMatcher($0) } // one per reader: it has buffers
        var reader = StreamReader(run: self, stream: stream, matcher: matcher, tails: tails)
        do {
            for try await buffer in sequence {
                buffer.withUnsafeBytes { splitter.feed($0) { reader.line($0) } }
                reader.publish()
            }
        } catch {
            // A read error ends this stream; the exit status still tells the outcome.
        }
        splitter.finish { reader.line($0) }
        reader.publish()
    }

    /// What one stream's lines do: an `output` event each, the tail, the progress fraction.
    private struct StreamReader {
        let run: CommandRun
        let stream: OutputStreamName
        let matcher: ProgressMatcher?
        let tails: Tails
        var last: String?
        var fraction: Double?

        init(run: CommandRun, stream: OutputStreamName, matcher: ProgressMatcher?, tails: Tails) {
            self.run = run
            self.stream = stream
            self.matcher = matcher
            self.tails = tails
        }

        mutating func line(_ line: String) {
            run.graph.reportOutput(run.node, stream: stream, text: line)
            tails.append(line, stream)
            if let f = matcher?.fraction(of: line[...]) { fraction = f }
            last = line
        }

        mutating func publish() {
            run.publish(last, fraction)
            last = nil
            fraction = nil
        }
    }

    /// One progress report per buffer read (the last line is what a row shows), not per line.
    fileprivate func publish(_ line: String?, _ fraction: Double?) {
        guard let line else { return }
        let f = state.withLock { s in
            if let fraction { s.fraction = fraction }
            return s.fraction
        }
        report(TaskProgress(f, info: line))
    }

    /// After the leader exited: processes it left in group `pid` get SIGTERM (and SIGKILL
    /// after `grace`). Returns when the group is empty (or, for zombies nobody reaps, soon
    /// after the SIGKILL). Processes that left the group are `StraySweeper`'s.
    private func reapGroup(_ pid: pid_t) async {
        if ProcessGroup.hasMembers(pid) {
            let alreadyCancelled = state.withLock { $0.cancelled }
            if !alreadyCancelled { terminate(pid) }
            let deadline = monotonicSeconds() + max(0, spec.grace) + 2
            var round = 0
            while ProcessGroup.hasMembers(pid) && monotonicSeconds() < deadline {
                try? await Task.sleep(for: .milliseconds(10))
                round += 1
                if round % 5 == 0 {
                    // Members whose parent ended first are ours to collect (we may be a
                    // subreaper): a zombie stays in the group until it is collected.
                    ProcessTeardown.reapAdopted(group: pid)
                }
            }
        }
        state.withLock { $0.gone = true }
        ProcessTeardown.noteGroup(pid, started: false)
    }

    // MARK: - Errors

    /// Why `executable` was not found: a path that does not exist, is a directory or is not
    /// executable says so; a name found in `path` only as files that are not executable says
    /// that, with the first; otherwise `command not found`.
    static func notFound(_ executable: String, path: String?) -> String {
        func problem(_ file: String) -> String? {
            var st = stat()
            guard stat(file, &st) == 0 else { return String(cString: strerror(errno)) }
            if st.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
            if access(file, X_OK) != 0 { return "not executable (permission denied)" }
            return nil
        }
        if executable.contains("/") {
            return "\(executable): " + (problem(executable) ?? "cannot be run")
        }
        for dir in (path ?? "").split(separator: ":", omittingEmptySubsequences: false) {
            let file = (dir.isEmpty ? "." : String(dir)) + "/" + executable
            var st = stat()
            if stat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG, access(file, X_OK) != 0 {
                return "\(executable): not executable (permission denied): \(file)"
            }
        }
        return "\(executable): command not found"
    }

    static func directoryProblem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return String(cString: strerror(errno)) }
        guard st.st_mode & S_IFMT == S_IFDIR else { return "not a directory" }
        return nil
    }

    static func reason(_ error: SubprocessError, executable: String, path: String?) -> String {
        switch error.code {
        case .executableNotFound:
            return notFound(executable, path: path)
        case .failedToChangeWorkingDirectory:
            return "cannot change directory" + (error.underlyingError.map { ": \($0.description)" } ?? "")
        case .spawnFailed:
            if let e = error.underlyingError {
                return "\(executable): " + String(cString: strerror(e.rawValue))
            }
            return "\(executable): cannot start"
        default:
            return "\(executable): \(error.description)"
        }
    }
}

/// The bounded tails of both streams (`CommandOutput`), filled by the two readers.
final class Tails: Sendable {
    let state = Mutex(
        (out: OutputTail(limit: CommandOutput.tailBytes), err: OutputTail(limit: CommandOutput.tailBytes)))

    func append(_ line: String, _ stream: OutputStreamName) {
        state.withLock { if stream == .stdout { $0.out.append(line) } else { $0.err.append(line) } }
    }
}

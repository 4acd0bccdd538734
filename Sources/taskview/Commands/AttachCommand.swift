import ArgumentParser
import TaskGraph
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `taskview attach`: watch and cancel the tasks of running programs that serve their
/// graph (docs/taskview.md "taskview attach").
struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Watch and cancel the tasks of running programs that serve their graph.",
        discussion: """
            A program becomes attachable with one line: "try Graph.shared.serve()". Sockets are \
            found in $TASKGRAPH_SOCKET_DIR, else $XDG_RUNTIME_DIR/taskgraph, else \
            /tmp/taskgraph-<uid> (files *.sock), by the server's own rules: a directory of \
            yours, mode 0700, not a symlink, with no parent anyone may write to without the \
            sticky bit (else it is named on stderr and not used); only programs of your own \
            user are attached (any socket, PATH included). A program that does not answer \
            within a second (stopped, busy) is listed as not answering and skipped. Without \
            PID or PATH: attaches to the only program, or (in a terminal) asks which. Each \
            program is a top-level row \
            "NAME (pid N)": connected, resynced (N skipped), exited, killed or refused. x/X cancel the \
            selected subtree in the program; quitting cancels nothing. Remote: \
            "taskview attach --ssh HOST [PID]" lists the programs on HOST (its own taskview's \
            --list, else its socket directory) and forwards the chosen one's socket with \
            "ssh -N -L" to a private temporary socket, ended with the session \
            ($TASKVIEW_SSH_COMMAND, e.g. "ssh -p 2222", runs instead of ssh); or by hand: \
            "ssh -N -L /tmp/x.sock:REMOTE.sock host", then "taskview attach /tmp/x.sock". \
            Exit status, once every program ended: their roots' outcome as for run (0, 1, 130; \
            a killed program counts as failed); 130 when quitting before that or on Ctrl-C, \
            SIGTERM or SIGHUP; 2 when nothing could be attached.
            """)

    @Argument(help: ArgumentHelp("Programs to attach: a pid or a socket path.", valueName: "PID|PATH"))
    var targets: [String] = []

    @Flag(name: .long, help: "Print the attachable programs (pid, name, socket, start time, live task count) and exit.")
    var list = false

    @Flag(name: .long, help: "Attach to every program found, and to any that starts later.")
    var all = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Attach to programs on HOST through ssh (PID, PATH, --list and --all then name HOST's programs).",
            valueName: "HOST"))
    var ssh: String?

    /// --headless, --record/--no-record, --ascii, --exit-when-done (--seed and --speed are
    /// refused). The root command declares the same group and, with a group of other
    /// properties here, the parser would hand these flags to the root instead.
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if common.seed != 0 || common.display.speed != 1 { throw ValidationError("attach takes no --seed or --speed") }
        if list && (all || !targets.isEmpty) { throw ValidationError("--list takes no PID, PATH or --all") }
        if all && !targets.isEmpty { throw ValidationError("--all takes no PID or PATH") }
    }

    func run() throws {
        if let ssh { return try runOverSSH(host: ssh) }
        let dir = AttachDiscovery.directory()
        if list {
            for line in probe(dir).compactMap(\.line) { print(line) }
            return
        }
        let otlp = try common.otlp.config()
        let paths = try chooseTargets(dir: dir)
        let session = AttachSession(watchDirectory: all ? dir : nil)
        for path in paths {
            do {
                try session.attach(path: path)
            } catch {
                session.stop()
                fail(Sanitizer.clean(error.description))
            }
        }
        try watch(session, otlp: otlp)
    }

    /// `--ssh HOST`: the host's programs, the chosen ones forwarded and attached; the
    /// forwards end and their directory is removed however the session ends.
    private func runOverSSH(host: String) throws {
        Signals.install()
        let forward: SSHForward
        do { forward = try SSHForward(host: host) } catch { fail(error.description) }
        let failOver: (String) -> Never = { message in
            forward.close()
            fail(message)
        }
        let programs: [RemotePrograms.Program]
        do { programs = try forward.list() } catch { failOver(error.description) }
        if list {
            forward.close()
            for program in programs { print(program.line) }
            return
        }
        let otlp: OTLPConfig?
        do { otlp = try common.otlp.config() } catch {
            forward.close()
            throw error
        }
        let chosen = chooseRemote(programs, host: Sanitizer.clean(host), fail: failOver)
        let session = AttachSession()
        for (index, program) in chosen.enumerated() {
            do {
                let local = try forward.forward(program.socket, interrupted: { Signals.pending != 0 })
                try session.attach(path: local)
            } catch {
                session.stop()
                let said = forward.messages(forwardAt: index)
                let why = Sanitizer.clean(String(describing: error))
                failOver(
                    "\(Sanitizer.clean(host)):\(Sanitizer.clean(program.socket)): \(why)"
                        + (said.isEmpty ? "" : " (ssh: \(said))"))
            }
        }
        defer { forward.close() }
        try watch(session, otlp: otlp)
    }

    /// The remote programs the arguments name (or the only one, or the one picked).
    private func chooseRemote(
        _ programs: [RemotePrograms.Program], host: String, fail: (String) -> Never
    ) -> [RemotePrograms.Program] {
        if !targets.isEmpty {
            return targets.flatMap { target in
                let found = RemotePrograms.select(target, from: programs)
                if found.isEmpty { fail("no program with pid \(Sanitizer.clean(target)) serves its graph on \(host)") }
                return found
            }
        }
        let live = programs.filter(\.answering)
        if live.isEmpty {
            fail(
                "no program serves its graph on \(host). Make a program attachable "
                    + "with `try Graph.shared.serve()` (see README, \"taskview attach\").")
        }
        if all || live.count == 1 { return all ? live : [live[0]] }
        for (i, program) in live.enumerated() { print("\(i + 1)) " + program.line) }
        guard isatty(0) != 0 && isatty(1) != 0 else {
            fail("\(live.count) programs serve their graph on \(host): name one (PID), or use --all")
        }
        print("Attach to which? [1-\(live.count)] ", terminator: "")
        fflush(nil)
        guard let answer = readLine(), let n = Int(answer.trimmingCharacters()), n >= 1, n <= live.count else {
            fail("no program chosen")
        }
        return [live[n - 1]]
    }

    /// Records (unless --no-record) and shows `session` until it ends; its exit status.
    private func watch(_ session: AttachSession, otlp: OTLPConfig?) throws {
        let started = RunNotifier.now()
        let logPath = try Self.recordPathOrExit(common)
        var recorder: GraphRecorder?
        if let logPath {
            do {
                recorder = try GraphRecorder(path: logPath, producer: Producer.line)
                recorder?.outputLimit = common.outputLimitBytes
            } catch {
                session.stop()
                fail("cannot write \(Sanitizer.clean(String(describing: error)))") // PATH: REASON
            }
            recorder.map(session.record(to:))
        }
        let stream = otlp.map { config in
            OTLPStream(
                graph: nil,
                header: OTLPRun.header(created: recorder?.created, producer: Producer.line, scenario: nil, seed: nil),
                origin: 0, config: config)
        }
        if let stream { session.stream(to: { stream.record($0) }) }
        let status = runSession(session, recorder: recorder, stream: stream)
        recorder?.finish()
        OTLPRun.finish(stream)
        let written = LogWritten.report(path: logPath, recorder: recorder)
        common.notifyIfDue(name: "attach", status: status, started: started)
        if !written { throw ExitCode(2) }
        if status != 0 { throw ExitCode(status) }
    }

    private func runSession(_ session: AttachSession, recorder: GraphRecorder?, stream: OTLPStream?) -> Int32 {
        if common.display.headless || common.display.isPlain || isatty(1) == 0 {
            Signals.install()
            // Plain: live lines and what is running every 10 s.
            let plain = !common.display.headless && common.display.isPlain
            let printer = AttachHeadless(
                session: session, runningEvery: plain ? PlainPacing.defaultRunningEvery : nil, print: { print($0) })
            return printer.run(interrupted: { Signals.pending != 0 })
        }
        let title = session.programCount == 1 && !all ? "attach" : "attach (\(session.programCount) programs)"
        let source = AttachSource(
            session: session, title: all ? "attach --all" : title,
            onKey: { key, node in recorder?.recordKey(key, node: node) })
        if let recorder { source.writeFailure.recordingError = { recorder.writeError } }
        if let stream { source.writeFailure.otlpTrouble = { stream.trouble() } }
        let options = DashboardLoop.Options(
            ascii: common.display.ascii || !TerminalEnvironment.isUTF8(),
            noColor: TerminalEnvironment.noColor(), exitWhenDone: common.display.exitWhenDone,
            mouse: !common.display.noMouse,
            theme: common.display.resolvedTheme)
        do {
            let model = try DashboardLoop.run(source: source, title: source.title, options: options)
            for line in ExitSummary.lines(model: model) { print(line) }
            for line in session.statusLines { print(line) }
            return source.exitStatus
        } catch {
            writeStderr("taskview: \(error); showing plain output instead\n")
            let printer = AttachHeadless(session: session, print: { print($0) })
            return printer.run(interrupted: { Signals.pending != 0 })
        }
    }

    /// The sockets in `dir` probed at once (within a second): stale ones dropped, refused
    /// ones named on stderr. A directory that breaks the server's rules is named on stderr
    /// and never used.
    private func probe(_ dir: String) -> [AttachDiscovery.Probe] {
        guard checkedDirectory(dir) else { return [] }
        return AttachDiscovery.probe(AttachDiscovery.sockets(in: dir)).filter { probe in
            switch probe {
            case .gone: return false
            case .refused(_, let reason):
                writeStderr("taskview: \(Sanitizer.clean(reason))\n")
                return false
            case .live, .notAnswering: return true
            }
        }
    }

    /// Whether `dir` may be used; when not, says why on stderr.
    private func checkedDirectory(_ dir: String) -> Bool {
        guard let why = AttachDiscovery.refusal(directory: dir) else { return true }
        writeStderr("taskview: \(Sanitizer.clean(why))\n")
        return false
    }

    /// The programs that answered; those that did not are named on stderr, skipped.
    private func live(in dir: String) -> [AttachDiscovery.ProgramInfo] {
        probe(dir).compactMap { probe in
            if case .live(let info) = probe { return info }
            if let line = probe.line { writeStderr("taskview: skipped: \(line)\n") }
            return nil
        }
    }

    /// The sockets to attach, from the arguments or by asking; exits 2 when there is none.
    private func chooseTargets(dir: String) throws -> [String] {
        if all { return live(in: dir).map(\.socket) }
        if !targets.isEmpty { return try targets.map { try resolve($0, dir: dir) } }
        let found = live(in: dir)
        if found.isEmpty {
            fail(
                "no program serves its graph in \(Sanitizer.clean(dir)). Make a program attachable "
                    + "with `try Graph.shared.serve()` (see README, \"taskview attach\").")
        }
        if found.count == 1 { return [found[0].socket] }
        for (i, info) in found.enumerated() { print("\(i + 1)) " + info.line) }
        guard isatty(0) != 0 && isatty(1) != 0 else {
            fail("\(found.count) programs serve their graph: name one (PID or PATH), or use --all")
        }
        print("Attach to which? [1-\(found.count)] ", terminator: "")
        fflush(nil)
        guard let answer = readLine(), let n = Int(answer.trimmingCharacters()), n >= 1, n <= found.count else {
            fail("no program chosen")
        }
        return [found[n - 1].socket]
    }

    /// A PID (its socket in `dir`: `PID.sock` or `PID-N.sock`) or a socket path.
    private func resolve(_ target: String, dir: String) throws -> String {
        if !target.isEmpty, target.allSatisfy(\.isASCII), target.allSatisfy(\.isNumber) {
            guard checkedDirectory(dir) else { exitProcess(2) }
            let mine = AttachDiscovery.sockets(in: dir).filter {
                let file = $0.split(separator: "/").last.map(String.init) ?? $0
                return file == "\(target).sock" || file.hasPrefix("\(target)-")
            }
            guard let first = mine.first else {
                fail("no program with pid \(target) serves its graph in \(Sanitizer.clean(dir))")
            }
            return first
        }
        var st = stat()
        guard stat(target, &st) == 0 else { fail("\(Sanitizer.clean(target)): no such socket") }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else { fail("\(Sanitizer.clean(target)): not a socket") }
        return target
    }

    static func recordPathOrExit(_ common: CommonOptions) throws -> String? {
        do {
            return try common.recordPath(prefix: "attach")
        } catch {
            writeStderr("taskview: \(error)\n")
            throw ExitCode(2)
        }
    }

    private func fail(_ message: String) -> Never {
        writeStderr("taskview: \(message)\n")
        exitProcess(2)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

// Inside a command, `exit` means ParsableCommand's; at file scope the unqualified name reaches
// the C library imported above (no module name, so every branch builds).
private func exitProcess(_ status: Int32) -> Never { exit(status) }

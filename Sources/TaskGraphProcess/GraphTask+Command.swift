import TaskGraph

extension GraphTask where Success == CommandOutput, Failure == CommandError {
    /// A task that runs `arguments` as a process when executed (argv[0] is looked up in
    /// `PATH` unless it contains a `/`). The process starts in its own session and process
    /// group with stdin from /dev/null; stdout and stderr are read line by line as they come
    /// (a line is cut at 4 KiB, invalid UTF-8 replaced): each line is an `output` event of
    /// the node and becomes the node's progress `info`, and `progress` turns matching lines
    /// into the fraction.
    ///
    /// Exit status 0 succeeds with `CommandOutput`; otherwise it fails with `CommandError`
    /// (`exit status N: LAST STDERR LINE`, `killed by SIGNAL`, `cannot run: REASON`).
    /// Cancelling the task (from any source) cancels the node at once and sends SIGTERM to
    /// the whole process group, then SIGKILL after `grace` seconds; the processes are
    /// reaped. Processes the command leaves behind in its group when it exits get the same.
    /// `environment` is added to this process's environment; `workingDirectory` must exist.
    public static func command(_ arguments: [String], name: String? = nil, graph: Graph = .shared,
                               workingDirectory: String? = nil, environment: [String: String] = [:],
                               progress: CommandProgress? = nil, grace: Double = 5) -> GraphTask {
        let spec = CommandSpec(arguments: arguments, shell: nil, workingDirectory: workingDirectory,
                               environment: environment, progress: progress, grace: sanitizedGrace(grace))
        return make(spec, name: name, graph: graph)
    }

    /// Like `command(_:...)`, running `shell` with `/bin/sh -c`.
    public static func command(shell: String, name: String? = nil, graph: Graph = .shared,
                               workingDirectory: String? = nil, environment: [String: String] = [:],
                               progress: CommandProgress? = nil, grace: Double = 5) -> GraphTask {
        let spec = CommandSpec(arguments: ["/bin/sh", "-c", shell], shell: shell, workingDirectory: workingDirectory,
                               environment: environment, progress: progress, grace: sanitizedGrace(grace))
        return make(spec, name: name, graph: graph)
    }

    private static func sanitizedGrace(_ g: Double) -> Double {
        g.isFinite ? min(max(0, g), 86_400) : 5
    }

    private static func make(_ spec: CommandSpec, name: String?, graph: Graph) -> GraphTask {
        GraphTask(name: name ?? spec.commandLine, graph: graph) { task, succeed, fail, progress in
            let run = CommandRun(spec: spec, graph: task.graph, node: task.id, report: progress)
            CommandRegistry.shared.started(
                graph: task.graph, node: task.id,
                info: CommandInfo(commandLine: spec.commandLine, workingDirectory: spec.workingDirectory))
            task.onCancel { run.cancel() }
            Task.detached {
                await run.run { outcome in
                    switch outcome {
                    case .success(let o): succeed(o)
                    case .failure(let e): fail(e)
                    }
                }
            }
        }
    }
}

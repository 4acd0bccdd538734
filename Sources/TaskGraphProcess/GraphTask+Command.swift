import TaskGraph

/// Commands as tasks: a process per node.
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
    /// reaped. Processes the command leaves behind in its group when it exits get the same, and
    /// so do processes that left the group (daemons that `setsid`): they carry the command's
    /// mark, `TASKGRAPH_COMMAND`, in their environment (see `ProcessTeardown`).
    /// `environment` is added to this process's environment; `workingDirectory` must exist.
    /// With `slots`, the command waits for a free slot before it starts (info `queued`, cleared
    /// by a progress 0 when it starts), and gives it back once its process group is empty.
    public static func command(
        _ arguments: [String], name: String? = nil, graph: Graph = .shared,
        workingDirectory: String? = nil, environment: [String: String] = [:],
        progress: CommandProgress? = nil, grace: Double = 5, slots: CommandSlots? = nil
    ) -> GraphTask {
        let spec = CommandSpec(
            arguments: arguments, shell: nil, workingDirectory: workingDirectory,
            environment: environment, progress: progress, grace: sanitizedGrace(grace))
        return makeCommandTask(spec, name: name, graph: graph, slots: slots) { $0 }
    }

    /// Like `command(_:...)`, running `shell` with `/bin/sh -c`.
    public static func command(
        shell: String, name: String? = nil, graph: Graph = .shared,
        workingDirectory: String? = nil, environment: [String: String] = [:],
        progress: CommandProgress? = nil, grace: Double = 5, slots: CommandSlots? = nil
    ) -> GraphTask {
        let spec = CommandSpec(
            arguments: ["/bin/sh", "-c", shell], shell: shell, workingDirectory: workingDirectory,
            environment: environment, progress: progress, grace: sanitizedGrace(grace))
        return makeCommandTask(spec, name: name, graph: graph, slots: slots) { $0 }
    }

}

extension GraphTask where Success == Void, Failure == any Error {
    /// The same command as `GraphTask<CommandOutput, CommandError>.command`, in one node of
    /// type `GraphTask<Void, any Error>` (no adapter node): for trees that mix commands with
    /// other tasks, such as taskview's scenarios. `shell` runs with `/bin/sh -c` and wins
    /// over `arguments`.
    public static func commandIgnoringOutput(
        _ arguments: [String] = [], shell: String? = nil, name: String? = nil,
        graph: Graph = .shared, workingDirectory: String? = nil,
        environment: [String: String] = [:], progress: CommandProgress? = nil,
        grace: Double = 5, slots: CommandSlots? = nil
    ) -> GraphTask {
        let spec = CommandSpec(
            arguments: shell.map { ["/bin/sh", "-c", $0] } ?? arguments, shell: shell,
            workingDirectory: workingDirectory, environment: environment, progress: progress,
            grace: sanitizedGrace(grace))
        return makeCommandTask(spec, name: name, graph: graph, slots: slots) { r in
            r.map { _ in () }.mapError { $0 }
        }
    }
}

func sanitizedGrace(_ g: Double) -> Double {
    g.isFinite ? min(max(0, g), 86_400) : 5
}

/// A leaf task running `spec`, its outcome turned into the task's types by `settle`.
func makeCommandTask<S: Sendable, F: Error>(
    _ spec: CommandSpec, name: String?, graph: Graph, slots: CommandSlots? = nil,
    _ settle: @escaping @Sendable (Result<CommandOutput, CommandError>) -> Result<S, F>
) -> GraphTask<S, F> {
    GraphTask<S, F>(commandNamed: name ?? spec.commandLine, graph: graph) { task, succeed, fail, progress in
        let run = CommandRun(spec: spec, graph: task.graph, node: task.id, report: progress)
        CommandRegistry.shared.started(
            graph: task.graph, node: task.id,
            info: CommandInfo(commandLine: spec.commandLine, workingDirectory: spec.workingDirectory))
        let token = slots?.token()
        task.onCancel {
            if let slots, let token { slots.cancel(token) }
            run.cancel()
        }
        Task.detached {
            if let slots, let token {
                var queued = false
                let go = await slots.acquire(token) {
                    queued = true
                    progress(TaskProgress(0, info: CommandSlots.queuedInfo))
                }
                guard go else {
                    CommandRegistry.shared.ended(graph: task.graph, node: task.id) // cancelled in line
                    return
                }
                slots.forget(token)
                // It starts now: time-based progress counts from here, not from the wait.
                if queued { progress(TaskProgress(0)) }
            }
            // The slot is free once the command's process group is empty (as `make -j` counts
            // recipes): processes that left the group are ended without holding it.
            await run.run(
                finish: { outcome in
                    switch settle(outcome) {
                    case .success(let v): succeed(v)
                    case .failure(let e): fail(e)
                    }
                },
                groupGone: { slots?.release() })
        }
    }
}

import TaskGraph
import TaskGraphProcess

/// A scenario ready to run: its graph on a fresh `VirtualClock` (a `MonotonicClock` when it
/// runs real commands: processes take real time), optionally recorded (the
/// recorder is attached before any task exists, so the log has every event), and the root
/// task, built but not executed.
package final class ScenarioSession: @unchecked Sendable { // used from the main thread only
    package let scenario: Scenario
    package let seed: UInt64
    package let clock: any GraphClock
    package let graph: Graph
    package let recorder: GraphRecorder?
    package let root: ScenarioTask
    /// The nodes the scenario's `id`s and `needs` became (empty without needs).
    package let needs: ScenarioNeedsMap
    /// The task of each node with an `id` or `needs`, by path (where restarts start).
    let tracked: [String: ScenarioTask]
    /// What marks the `allowFailure` nodes when the run starts.
    private let resolver: NeedsResolver
    /// Job slots of the scenario's commands (`--jobs`); restarts take theirs too.
    let slots: CommandSlots?
    /// `-k` (`--keep-going`): every `sequential` and `concurrent` goes on past failures
    /// (restarts' groups too).
    package let keepGoing: Bool
    /// The clock time the session's times count from: the log's `t = 0` (when recording
    /// began), else when the session was made. Headless lines print times from it, so a run
    /// and the replay of its log print the same times.
    package let origin: Double

    /// - Parameters:
    ///   - recordTo: log path (nil: no log).
    ///   - producer: the log header's producer (default: the command line).
    ///   - jobs: at most this many commands at once in the whole scenario (nil: no limit).
    ///   - keepGoing: `-k`: groups go on past failures.
    package init(
        scenario: Scenario, seed: UInt64, recordTo: String? = nil, producer: String? = nil, jobs: Int? = nil,
        keepGoing: Bool = false
    ) throws {
        self.scenario = scenario
        self.seed = seed
        self.keepGoing = keepGoing
        let clock: any GraphClock = scenario.runsCommands ? MonotonicClock() : VirtualClock()
        let graph = Graph(clock: clock)
        self.clock = clock
        self.graph = graph
        let made = clock.now
        recorder = try recordTo.map {
            try GraphRecorder(
                graph: graph, path: $0, producer: producer, scenario: scenario.name, seed: seed,
                scenarioFile: scenario.file)
        }
        origin = recorder?.startTime ?? made
        let slots = jobs.map { CommandSlots(limit: $0) }
        self.slots = slots
        let builder = ScenarioBuilder(graph: graph, seed: seed, slots: slots, keepGoing: keepGoing)
        root = builder.build(scenario)
        needs = builder.needs
        tracked = builder.needsResolver.tracked
        resolver = builder.needsResolver
    }

    /// The root's node.
    package var rootID: NodeID { root.id }

    /// Marks the `allowFailure` nodes (views observe by now) and executes the root.
    package func start() {
        resolver.markAllowed(in: graph)
        if let slots {
            // The run's `--jobs`, for the why-lines of commands waiting for a slot (replays too).
            var list = [NodeAttribute(WhyLine.jobsKey, String(slots.limit))]
            if resolver.allowed.contains(root.id) { list.insert(RunVerdict.allowFailureAttribute, at: 0) }
            graph.setAttributes(root.id, list)
        }
        root.execute()
    }

    /// The virtual clock of a scenario without commands.
    package var virtualClock: VirtualClock? { clock as? VirtualClock }

    /// Longest `grace` of the scenario's commands.
    package var maxGrace: Double { Self.maxGrace(scenario.root) }

    private static func maxGrace(_ n: ScenarioNode) -> Double {
        n.children.reduce(n.kind == .command ? (n.grace ?? 5) : 0) { max($0, maxGrace($1)) }
    }

    /// Blocks until every process of the scenario's commands is gone (after a cancel they
    /// get SIGTERM, then SIGKILL after their grace). Call before exiting.
    @discardableResult
    package func waitForCommands() -> Bool {
        guard scenario.runsCommands else { return true }
        return CommandRegistry.shared.waitUntilAllReaped(timeout: maxGrace + 10)
    }

    /// For a program that owns its whole process tree (taskview, not a test process): makes it
    /// a child subreaper, so daemons that `setsid` stay its descendants, and starts the
    /// watchdog that ends every command's processes when the program is gone, `kill -9`
    /// included (`ProcessTeardown`). Does nothing for a scenario without commands.
    package func guardProcesses() {
        guard scenario.runsCommands else { return }
        ProcessTeardown.adoptOrphans()
        ProcessTeardown.startWatchdog(grace: 1)
    }

    /// After `waitForCommands`, for the program that called `guardProcesses`: ends every
    /// process still left (descendants that cleared their environment and left their group),
    /// SIGTERM then SIGKILL after the scenario's longest grace. Returns how many there were.
    @discardableResult
    package func terminateLeftovers() -> Int {
        guard scenario.runsCommands else { return 0 }
        return ProcessTeardown.terminateLeftovers(grace: maxGrace)
    }

    /// Ends the log: final snapshot and `end`.
    package func finishRecording() { recorder?.finish() }
}

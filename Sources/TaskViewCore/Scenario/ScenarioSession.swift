import TaskGraph

/// A scenario ready to run: its graph on a fresh `VirtualClock`, optionally recorded (the
/// recorder is attached before any task exists, so the log has every event), and the root
/// task, built but not executed.
public final class ScenarioSession: @unchecked Sendable {   // used from the main thread only
    public let scenario: Scenario
    public let seed: UInt64
    public let clock: VirtualClock
    public let graph: Graph
    public let recorder: GraphRecorder?
    public let root: ScenarioTask

    /// - Parameters:
    ///   - recordTo: log path (nil: no log).
    ///   - producer: the log header's producer (default: the command line).
    public init(scenario: Scenario, seed: UInt64, recordTo: String? = nil, producer: String? = nil) throws {
        self.scenario = scenario
        self.seed = seed
        let clock = VirtualClock()
        let graph = Graph(clock: clock)
        self.clock = clock
        self.graph = graph
        recorder = try recordTo.map {
            try GraphRecorder(graph: graph, path: $0, producer: producer, scenario: scenario.name, seed: seed)
        }
        root = ScenarioBuilder(graph: graph, seed: seed).build(scenario)
    }

    /// The root's node.
    public var rootID: NodeID { root.id }

    /// Executes the root.
    public func start() { root.execute() }

    /// Runs headless without printing: timer to timer until the root settles (or nothing is
    /// left to run). For tests and benchmarks; taskview's headless mode prints as it goes.
    public func runToEnd() {
        start()
        while !root.state.isSettled, clock.runNext() {}
    }

    /// Ends the log: final snapshot and `end`.
    public func finishRecording() { recorder?.finish() }
}

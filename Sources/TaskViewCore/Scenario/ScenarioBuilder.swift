import Synchronization
import TaskGraph
import TaskGraphProcess

/// What a failing `work` node fails with.
package struct ScenarioFailure: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Every scenario node becomes a task of this type (`any Error`, so that `timeout` needs no
/// adapter).
package typealias ScenarioTask = GraphTask<Void, any Error>

/// Builds a scenario with the real TaskGraph API on `graph` (which should use a
/// `VirtualClock`): `work` leaves are four-argument `GraphTask`s that report `steps` progress
/// reports on the graph's clock and then succeed or fail; the other kinds are the library's
/// composites (the groups in their `combine:` form, so each scenario node is exactly one
/// node of the graph).
package struct ScenarioBuilder {
    package let graph: Graph
    package let seed: UInt64
    /// What `needs` resolves to while building (see `NeedsResolver`).
    let needsResolver = NeedsResolver()
    /// Job slots every `command` node takes one of while it runs (`--jobs`); nil: no limit.
    package let slots: CommandSlots?
    /// `-k`: every `sequential` and `concurrent` goes on past failures.
    package let keepGoing: Bool

    package init(graph: Graph, seed: UInt64, slots: CommandSlots? = nil, keepGoing: Bool = false) {
        self.graph = graph
        self.seed = seed
        self.slots = slots
        self.keepGoing = keepGoing
    }

    /// The root task (not executed).
    package func build(_ scenario: Scenario) -> ScenarioTask {
        needsResolver.start(scenario)
        return build(scenario.root, path: "0")
    }

    /// The nodes made for the scenario's `id`s and `needs` by the last `build`.
    package var needs: ScenarioNeedsMap { needsResolver.map }

    /// `path` is the node's position ("0.2.1"), which seeds its random draws. The first
    /// attempt of a `retry` of N > 1 attempts (`firstAttemptOf` N), leaf or composite, is
    /// named "NAME (attempt 1/N)", as the library names the later ones.
    func build(_ node: ScenarioNode, path: String, firstAttemptOf attempts: Int? = nil) -> ScenarioTask {
        if let done = needsResolver.task(at: path) { return done }
        let kids = { node.children.enumerated().map { build($1, path: "\(path).\($0)") } }
        let name = attempts.flatMap { $0 > 1 ? "\(node.name) (attempt 1/\($0))" : nil } ?? node.name
        let task: ScenarioTask
        switch node.kind {
        case .work:
            task = work(node, path: path, name: name)
        case .sequential, .concurrent:
            task = group(node, kids(), name: name)
        case .allSettled:
            task = ScenarioTask.allSettled(kids(), name: name, graph: graph) { _ in () }
        case .then:
            let k = kids()
            task = k[0].then(k[1], name: name)
        case .recover:
            let k = kids()
            task = k[0].recover(k[1], name: name)
        case .retry:
            task = build(node.children[0], path: "\(path).0", firstAttemptOf: node.attempts)
                .retry(node.attempts, name: name)
        case .timeout:
            task = kids()[0].timeout(seconds: node.seconds, name: name)
        case .command:
            task = command(node, name: name)
        }
        return needsResolver.finish(node, path: path, task: task, builder: self)
    }

    /// A `sequential` or `concurrent`: the library's, unless `-k` or a child's
    /// `allowFailure` makes it go on past failures.
    func group(_ node: ScenarioNode, _ kids: [ScenarioTask], name: String) -> ScenarioTask {
        let concurrently = node.kind == .concurrent
        let tolerated = Set(node.children.indices.filter { node.children[$0].allowFailure })
        guard keepGoing || !tolerated.isEmpty else {
            return concurrently
                ? ScenarioTask.concurrent(kids, name: name, graph: graph) { _ in () }
                : ScenarioTask.sequential(kids, name: name, graph: graph) { _ in () }
        }
        return ScenarioTask.keepingOn(
            kids, concurrently: concurrently, keepGoing: keepGoing, tolerated: tolerated, name: name, graph: graph
        ) { _ in () }
    }

    /// A real command (TaskGraphProcess), one node. Every command gets `TASKVIEW_SEED` in
    /// its environment, so `--seed` can steer it too.
    func command(_ node: ScenarioNode, name: String) -> ScenarioTask {
        var env = node.env
        if env["TASKVIEW_SEED"] == nil { env["TASKVIEW_SEED"] = String(seed) }
        let progress = node.progress.map { CommandProgress(pattern: $0) }
        var argv: [String] = []
        var shell: String?
        switch node.run {
        case .shell(let s)?: shell = s
        case .argv(let a)?: argv = a
        case nil: break // the decoder requires `run`; an empty argv fails with "cannot run"
        }
        return ScenarioTask.commandIgnoringOutput(
            argv, shell: shell, name: name, graph: graph,
            workingDirectory: node.cwd, environment: env,
            progress: progress, grace: node.grace ?? 5, slots: slots)
    }

    /// A simulated leaf. Each run of its closure (the first attempt, then each `retry`
    /// copy) is one attempt, with its own generator.
    func work(_ node: ScenarioNode, path: String, name: String? = nil) -> ScenarioTask {
        let spec = WorkSpec(node)
        let attempts = AttemptCounter(first: needsResolver.attemptBase)
        let seed = self.seed
        let clock = graph.clock
        return ScenarioTask(name: name ?? node.name, graph: graph) { task, succeed, fail, progress in
            let attempt = attempts.next()
            var rng = SplitMix64(seed: seed, path: path, attempt: attempt)
            let unlucky = spec.failProbability.map { rng.nextUnit() < $0 } ?? false
            let run = WorkRun(
                spec: spec, fails: spec.fail || unlucky || spec.failAt != nil,
                clock: clock, succeed: { succeed(()) }, fail: fail, progress: progress)
            task.onCancel { run.stop() }
            run.next()
        }
    }
}

/// What a `work` node does, resolved once.
struct WorkSpec: Sendable {
    let duration: Double
    let steps: Int
    let phases: [String]
    let fail: Bool
    let failAt: Double?
    let failProbability: Double?
    let message: String

    init(_ node: ScenarioNode) {
        duration = node.duration
        steps = node.steps
        phases = node.phases
        fail = node.fail
        failAt = node.failAt
        failProbability = node.failProbability
        message = node.message ?? "\(node.name) failed"
    }

    /// When the attempt ends: at `failAt` (if earlier than the duration) when failing.
    func end(fails: Bool) -> Double {
        guard fails, let failAt else { return duration }
        return min(failAt, duration)
    }

    /// Time of progress report `i` (1-based) since the start.
    func stepTime(_ i: Int) -> Double { duration * Double(i) / Double(steps) }

    /// The phase text of report `i`: phases spread evenly over the steps.
    func phase(_ i: Int) -> String? {
        guard !phases.isEmpty, steps > 0 else { return nil }
        return phases[min(phases.count - 1, (i - 1) * phases.count / steps)]
    }
}

/// Counts the runs of one leaf's closure.
final class AttemptCounter: Sendable {
    private let count: Mutex<Int>
    init(first: Int = 0) { count = Mutex(first) }
    func next() -> Int {
        count.withLock { n in
            defer { n += 1 }
            return n
        }
    }
}

/// One attempt of a `work` leaf: a chain of timers on the graph's clock, one per progress
/// report, then the outcome. Cancelling stops the pending timer.
final class WorkRun: Sendable {
    private struct State {
        var step = 0
        var elapsed = 0.0
        var timer: (any GraphTimer)?
        var stopped = false
    }

    let spec: WorkSpec
    let fails: Bool
    let end: Double
    let clock: any GraphClock
    let succeed: @Sendable () -> Void
    let fail: @Sendable (ScenarioFailure) -> Void
    let progress: @Sendable (TaskProgress) -> Void
    private let state = Mutex(State())

    init(
        spec: WorkSpec, fails: Bool, clock: any GraphClock, succeed: @escaping @Sendable () -> Void,
        fail: @escaping @Sendable (ScenarioFailure) -> Void, progress: @escaping @Sendable (TaskProgress) -> Void
    ) {
        self.spec = spec
        self.fails = fails
        self.end = spec.end(fails: fails)
        self.clock = clock
        self.succeed = succeed
        self.fail = fail
        self.progress = progress
    }

    /// Schedules the next report, or the outcome.
    func next() {
        let (at, elapsed, stopped) = state.withLock { s -> (Double, Double, Bool) in
            let i = s.step + 1
            let at =
                i <= spec.steps && (spec.stepTime(i) < end || (!fails && spec.stepTime(i) <= end))
                ? spec.stepTime(i) : end
            return (at, s.elapsed, s.stopped)
        }
        guard !stopped else { return }
        let timer = clock.schedule(after: max(0, at - elapsed)) { [self] in fire(at: at) }
        state.withLock { $0.timer = timer }
    }

    private func fire(at time: Double) {
        let i = state.withLock { s -> Int? in
            guard !s.stopped else { return nil }
            s.elapsed = time
            let i = s.step + 1
            if i <= spec.steps && (spec.stepTime(i) < end || (!fails && spec.stepTime(i) <= end)) {
                s.step = i
                return i
            }
            s.stopped = true
            return 0
        }
        switch i {
        case nil: return
        case 0?:
            if fails { fail(ScenarioFailure(spec.message)) } else { succeed() }
        case let i?:
            progress(TaskProgress(Double(i) / Double(spec.steps), info: spec.phase(i)))
            next()
        }
    }

    func stop() {
        let t = state.withLock { s -> (any GraphTimer)? in
            s.stopped = true
            defer { s.timer = nil }
            return s.timer
        }
        t?.cancel()
    }
}

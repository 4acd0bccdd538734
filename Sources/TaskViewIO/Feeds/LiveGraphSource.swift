import TaskGraph
import TaskGraphProcess
import TaskViewCore

/// A running graph. On a `VirtualClock` it is paced against real time × `speed`: each tick
/// runs the timers due by then (one at a time, so the clock stops where the root settled);
/// single-threaded and deterministic: the clock only moves inside `tick`. On any other
/// clock (real time: commands) the graph runs on its own threads and a tick only takes the
/// events that arrived; event times are shown relative to the start.
package final class LiveGraphSource: DashboardSource {
    package let graph: Graph
    package let clock: any GraphClock
    var virtualClock: VirtualClock? { clock as? VirtualClock }
    package let root: NodeID
    package let title: String
    package let speed: Double
    let inbox: EventInbox
    var observation: (any GraphObservation)?
    let startWork: () -> Void
    var started = false
    var clockOrigin: Double = 0
    /// Called for keys that cancelled something (for the replay log's `key` events).
    let onKey: ((String, NodeID?) -> Void)?
    /// What a scenario's `id`s and `needs` became, for the detail pane.
    package var needs = ScenarioNeedsMap()
    /// The real time of the last tick, and where graph time is paced from after a restart
    /// (the clock stood still meanwhile: a restart's attempts take their own time).
    var lastRealElapsed = 0.0
    var pacingOrigin: Double?
    /// Restarts nodes of a scenario run (`r`/`R`); nil: the graph has no remakes.
    package var restarter: ScenarioRestarter?
    /// Earlier runs of the same scenario file, for the ETA.
    package var history: RunHistory?
    /// The run the Δ column compares with.
    package var baseline: Baseline?
    /// The `slow` and `silent` rules, checked once a second of graph time (and when the root
    /// settled); nil: none.
    package var warnings: SharedWarningRules?
    var nextWarningCheck = 0.0
    /// Shown in the footer from the start (a history file that could not be read).
    package var notice: String?
    /// Where every command's whole output is kept (what `o` opens); nil: nowhere.
    package var outputFiles: CommandOutputFiles?
    /// A failed write of the log or an output file, for the footer.
    package var writeFailure = WriteFailureNotice()
    /// The last state changes and output lines, for plain mode.
    package let plainFeed: PlainFeed? = PlainFeed()
    /// Events a tick took from the inbox but left for the next ticks (`backlog[backlogStart...]`):
    /// under a flood of output a tick absorbs at most `eventsPerTick`, so keys are read and
    /// frames drawn between batches.
    var backlog: [GraphEvent] = []
    var backlogStart = 0
    /// What one tick absorbs at most (a few milliseconds of work).
    package static let eventsPerTick = 16_384

    /// `start` executes the root; it runs after observation begins, in `start(model:)`.
    package init(
        graph: Graph, clock: any GraphClock, root: NodeID, title: String, speed: Double,
        onKey: ((String, NodeID?) -> Void)? = nil, start: @escaping () -> Void
    ) {
        self.graph = graph
        self.clock = clock
        self.root = root
        self.title = title
        self.speed = speed > 0 && clock is VirtualClock ? speed : 1
        self.onKey = onKey
        self.startWork = start
        // Off a virtual clock events arrive from other threads: they wake the loop.
        inbox = EventInbox(root: root, wakeable: !(clock is VirtualClock))
    }

    deinit { observation?.cancel() }

    package func start(model: inout DashboardModel) {
        let inbox = self.inbox
        let (snapshot, obs) = graph.snapshotAndObserve { inbox.receive($0) }
        observation = obs
        model.tree = TreeModel(snapshot: snapshot)
        model.tree.needsMap = needs
        model.canRestart = restarter != nil
        model.judgesSteps = true // a scenario run
        model.title = title
        model.root = root.rawValue
        model.history = history
        model.baseline = baseline
        if let notice { model.view.message = Sanitizer.clean(notice) }
        clockOrigin = clock.now
        if !started {
            started = true
            startWork()
        }
        absorb(&model)
    }

    /// The root settled and no restart's attempts still run.
    var rootSettled: Bool { inbox.rootSettled && !(restarter?.running ?? false) }

    package func tick(realElapsed: Double, model: inout DashboardModel) -> Bool {
        lastRealElapsed = realElapsed
        if !rootSettled, let clock = virtualClock {
            let target = (pacingOrigin ?? clockOrigin) + realElapsed * speed
            while !rootSettled, let due = clock.nextDue, due <= target {
                clock.runNext()
            }
            if !rootSettled && clock.now < target { clock.advance(by: target - clock.now) }
        }
        let before = model.clockNow
        var changed = absorb(&model, limit: Self.eventsPerTick)
        if checkWarnings(&model) { changed = absorb(&model, limit: Self.eventsPerTick) || changed }
        let failure = writeFailure.message(realElapsed: realElapsed, outputFiles: outputFiles?.writeError)
        if let failure { model.view.message = failure }
        return changed || failure != nil || Format.duration(before) != Format.duration(model.clockNow)
    }

    /// Applies the `slow` and `silent` rules to the model (their `warn` events are recorded
    /// by the graph and absorbed like any); true when a warning began or ended.
    func checkWarnings(_ model: inout DashboardModel) -> Bool {
        guard let warnings, model.clockNow >= nextWarningCheck || rootSettled else { return false }
        nextWarningCheck = model.clockNow + 1
        let changes = warnings.check(model.tree, now: model.clockNow)
        for c in changes { graph.warn(NodeID(c.id), rule: c.rule, text: c.text) }
        return !changes.isEmpty
    }

    /// The next events in order: at most `limit` (the backlog first); every waiting one
    /// without a limit.
    func takeEvents(limit: Int) -> [GraphEvent] {
        if backlog.isEmpty {
            let drained = inbox.drain()
            guard drained.count > limit else { return drained }
            backlog = drained
            backlogStart = 0
        } else if limit == .max {
            let rest = Array(backlog[backlogStart...]) + inbox.drain()
            backlog = []
            backlogStart = 0
            return rest
        }
        let end = min(backlog.count, backlogStart + limit)
        let out = Array(backlog[backlogStart..<end])
        backlogStart = end
        if end == backlog.count {
            backlog = []
            backlogStart = 0
        }
        return out
    }

    @discardableResult
    func absorb(_ model: inout DashboardModel, limit: Int = .max) -> Bool {
        var events = takeEvents(limit: limit)
        if clockOrigin != 0 {
            for i in events.indices { events[i].time -= clockOrigin }
        }
        model.tree.absorb(events)
        outputFiles?.record(events)
        plainFeed?.record(events)
        let commandsChanged = refreshCommands(events, &model)
        model.clockNow = clock.now - clockOrigin
        if model.restartsRunning, !(restarter?.running ?? false) { model.restartsRunning = false }
        let settled = model.updateOutcome()
        Reducer.applyFollow(&model)
        return !events.isEmpty || settled || commandsChanged
    }

    /// Copies command facts (command line, directory, pid, exit) from `CommandRegistry` into
    /// the model, so the renderer stays pure: for nodes that printed, commands not known to
    /// have ended, and the node an open detail pane shows (a command that prints nothing) with
    /// the nodes its `Why:` chain passes.
    func refreshCommands(_ events: [GraphEvent], _ model: inout DashboardModel) -> Bool {
        var ids: [Int] = []
        var last = -1
        for e in events {
            if case .output(let id, _, _) = e.change, id.rawValue != last {
                last = id.rawValue
                ids.append(last)
            }
        }
        for (id, info) in model.tree.commands where info.exit == nil { ids.append(id) }
        if model.view.detailOpen, model.view.selection != .none {
            // The selected row, and the node a folded `map` adapter shows.
            var sel = model.tree.shownNode(model.view.selection).rawValue
            var steps = 0
            ids.append(sel)
            while model.tree.contains(sel), model.tree.nodes[sel].foldsIntoChild, steps < 64 {
                steps += 1
                sel = Int(model.tree.nodes[sel].children[0])
                ids.append(sel)
            }
            // The nodes its `Why:` line passes: its end names the blocker's command.
            ids += WhyLine.chainNodes(
                model.tree.shownNode(model.view.selection).rawValue, in: model.tree, now: model.clockNow)
        }
        var changed = false
        for id in ids where model.tree.contains(id) {
            guard let info = CommandRegistry.shared.info(graph: graph, node: NodeID(id)),
                model.tree.commands[id] != info
            else { continue }
            model.tree.setCommand(info, for: id)
            changed = true
        }
        return changed
    }

    package func outputFile(node: NodeIndex, model: DashboardModel) -> String? {
        outputFiles?.flushedPath(node: node.rawValue)
    }

    package func secondsUntilNextTick(realElapsed: Double, model: DashboardModel) -> Double? {
        if !backlog.isEmpty { return 0 }
        if rootSettled { return nil }
        // The elapsed time in the header moves every 0.1 s of graph time.
        let frame = 1.0 / 30
        guard let clock = virtualClock else {
            // Events wake the loop through `wakeDescriptors`; time only moves the header
            // clock (and the detail pane's command facts, which have no events).
            return Format.secondsUntilDurationChanges(clock.now - clockOrigin)
        }
        guard let due = clock.nextDue else { return max(frame, 0.1 / speed) }
        let wait = (due - clock.now) / speed
        return min(max(wait, frame), max(frame, 0.1 / speed))
    }

    /// The inbox's wake pipe off a virtual clock (nothing on one: time moves only in `tick`).
    package var wakeDescriptors: [Int32] { inbox.wakeDescriptor.map { [$0] } ?? [] }

    package func perform(_ effect: DashboardEffect, key: Key, model: inout DashboardModel) {
        if case .restart(let row, let withNeeds) = effect {
            restart(row, withNeeds: withNeeds, key: key, model: &model)
            return
        }
        guard case .cancel(let node, let source) = effect else { return }
        // The node may have settled on another thread since the model last heard: take what
        // happened first, and say so when the cancel found it settled.
        graph.flushObservers()
        absorb(&model)
        let before = CancelPreview(tree: model.tree, display: model.displayTree(), node: node.rawValue)
        guard before.cancellable else {
            model.view.message = before.readOnly ?? before.finishedMessage
            return
        }
        graph.cancel(NodeID(node.rawValue), source: source)
        graph.flushObservers()
        absorb(&model)
        let after = model.tree.nodes[before.target].display
        if after == .succeeded || after == .failed {
            model.view.message = before.finishedMessage
            return
        }
        onKey?(key.name, NodeID(node.rawValue))
    }

    /// Restarts `row` as a new attempt (and what was skipped because of it; `withNeeds`: after
    /// new attempts of what it needs): the run is live again until the attempts settle.
    func restart(_ row: RowIndex, withNeeds: Bool = false, key: Key, model: inout DashboardModel) {
        let node = row.rawValue
        let name = model.tree.nodes[model.displayTree().content(row)].name
        guard let restarter, let done = restarter.restart(node, in: model.tree, withNeeds: withNeeds) else {
            model.view.message = "cannot restart: \(name) was not made restartable"
            return
        }
        onKey?(key.name, NodeID(node))
        if let clock = virtualClock { pacingOrigin = clock.now - lastRealElapsed * speed }
        // The restarter recorded each new node as an attempt of its row (`attempt` events):
        // absorbing them draws the attempts in place and hides the restart's root.
        model.outcome = nil
        model.restartsRunning = true
        absorb(&model)
        let k = done.tops.count - 1 - done.needs
        let needs = done.needs == 0 ? "" : " after the \(done.needs) step\(done.needs == 1 ? "" : "s") it needs"
        model.view.message =
            "Restarted \(name)" + (k == 0 ? "" : " and \(k) node\(k == 1 ? " that needs" : "s that need") it")
            + needs
    }

    package func finish(source: String, model: inout DashboardModel) {
        restarter?.cancelAll(source: source)
        if !inbox.rootSettled { graph.cancel(root, source: source) }
        absorb(&model)
    }
}

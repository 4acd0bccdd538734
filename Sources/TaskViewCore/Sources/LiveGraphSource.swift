import TaskGraph
import TaskGraphProcess

/// A running graph. On a `VirtualClock` it is paced against real time × `speed`: each tick
/// runs the timers due by then (one at a time, so the clock stops where the root settled);
/// single-threaded and deterministic: the clock only moves inside `tick`. On any other
/// clock (real time: commands) the graph runs on its own threads and a tick only takes the
/// events that arrived; event times are shown relative to the start.
public final class LiveGraphSource: DashboardSource {
    public let graph: Graph
    public let clock: any GraphClock
    var virtualClock: VirtualClock? { clock as? VirtualClock }
    public let root: NodeID
    public let title: String
    public let speed: Double
    let inbox: EventInbox
    var observation: (any GraphObservation)?
    let startWork: () -> Void
    var started = false
    var clockOrigin: Double = 0
    /// Called for keys that cancelled something (for the replay log's `key` events).
    let onKey: ((String, NodeID?) -> Void)?
    /// Earlier runs of the same scenario file, for the ETA.
    public var history: RunHistory?

    /// `start` executes the root; it runs after observation begins, in `start(model:)`.
    public init(
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

    public func start(model: inout DashboardModel) {
        let inbox = self.inbox
        let (snapshot, obs) = graph.snapshotAndObserve { inbox.receive($0) }
        observation = obs
        model.tree = TreeModel(snapshot: snapshot)
        model.title = title
        model.root = root.rawValue
        model.history = history
        clockOrigin = clock.now
        if !started {
            started = true
            startWork()
        }
        absorb(&model)
    }

    var rootSettled: Bool { inbox.rootSettled }

    public func tick(realElapsed: Double, model: inout DashboardModel) -> Bool {
        if !rootSettled, let clock = virtualClock {
            let target = clockOrigin + realElapsed * speed
            while !rootSettled, let due = clock.nextDue, due <= target {
                clock.runNext()
            }
            if !rootSettled && clock.now < target { clock.advance(by: target - clock.now) }
        }
        let before = model.clockNow
        let changed = absorb(&model)
        return changed || Format.duration(before) != Format.duration(model.clockNow)
    }

    @discardableResult
    func absorb(_ model: inout DashboardModel) -> Bool {
        var events = inbox.drain()
        if clockOrigin != 0 {
            for i in events.indices { events[i].time -= clockOrigin }
        }
        model.tree.absorb(events)
        let commandsChanged = refreshCommands(events, &model)
        model.clockNow = clock.now - clockOrigin
        let settled = model.updateOutcome()
        Reducer.applyFollow(&model)
        return !events.isEmpty || settled || commandsChanged
    }

    /// Copies command facts (command line, directory, pid, exit) from `CommandRegistry` into
    /// the model, so the renderer stays pure: for nodes that printed, commands not known to
    /// have ended, and the node an open detail pane shows (a command that prints nothing).
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
        if model.view.detailOpen, model.view.selection >= 0 {
            // The selected row, and the node a folded `map` adapter shows.
            var sel = model.view.selection
            var steps = 0
            ids.append(sel)
            while model.tree.contains(sel), model.tree.nodes[sel].kind == NodeKind.map,
                model.tree.nodes[sel].children.count == 1, steps < 64
            {
                steps += 1
                sel = Int(model.tree.nodes[sel].children[0])
                ids.append(sel)
            }
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

    public func secondsUntilNextTick(realElapsed: Double, model: DashboardModel) -> Double? {
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
    public var wakeDescriptors: [Int32] { inbox.wakeDescriptor.map { [$0] } ?? [] }

    public func perform(_ effect: DashboardEffect, key: Key, model: inout DashboardModel) {
        guard case .cancel(let node, let source) = effect else { return }
        graph.cancel(NodeID(node), source: source)
        onKey?(key.name, NodeID(node))
        absorb(&model)
    }

    public func finish(source: String, model: inout DashboardModel) {
        if !rootSettled { graph.cancel(root, source: source) }
        absorb(&model)
    }
}

import TaskGraph
import TaskViewCore

/// The dashboard driven by a replay log: plays the events against real time × speed, and
/// implements the replay controls (play/pause, step, seek ∓5 s, jump to 0-90 %, speed
/// 1/64 ... 64). Seeking starts from the nearest of the trees kept along the log (built by
/// one pass over its events when the replay starts) or from where the replay is, whichever
/// leaves fewer events to apply.
public final class ReplaySource: DashboardSource {
    package let log: ReplayLog
    package let title: String
    /// Graph events applied so far.
    package private(set) var position = 0
    /// Replay clock (seconds on the recorded graph's clock).
    public private(set) var time = 0.0
    package private(set) var speed: Double
    package private(set) var playing = true
    private var lastReal: Double?
    private let root: Int
    /// Outputs written for `o` (see `outputFile(node:model:)`).
    var outputFiles: CommandOutputFiles?
    var outputWritten: Set<Int> = []
    /// The run the Δ column (`d`) compares with (`replay --baseline`).
    package var baseline: Baseline?
    /// Trees after `count` events, ascending by count, the first at 0; spaced so that at most
    /// max(minSpacing, 3 × nodes) events separate two of them.
    private var trees: [(count: Int, tree: TreeModel)] = []
    /// Failures, cancels and roots settling, found by the same pass.
    private var markers = ReplayMarkers()
    static let minSpacing = 5000

    package static let minSpeed = 1.0 / 64
    package static let maxSpeed = 64.0
    package static let seekStep = 5.0

    /// A replay of `log`, its header saying `title`, playing at `speed` (clamped to
    /// `minSpeed`...`maxSpeed`).
    public init(log: ReplayLog, title: String, speed: Double = 1) {
        self.log = log
        self.title = title
        self.speed = min(max(speed, ReplaySource.minSpeed), ReplaySource.maxSpeed)
        root = log.finalSnapshot.roots.last?.rawValue ?? -1
    }

    /// Fills the model with the log's start (see `DashboardSource.start`).
    public func start(model: inout DashboardModel) {
        model.replay = ReplayState()
        model.title = title
        model.root = root
        model.judgesSteps = log.header.scenario != nil // a taskview run's log
        model.baseline = baseline
        buildTrees()
        rebuild(at: log.eventCount(atTime: 0), model: &model)
        time = 0
        publish(&model)
    }

    package func tick(realElapsed: Double, model: inout DashboardModel) -> Bool {
        defer { lastReal = realElapsed }
        guard playing, let last = lastReal else { return false }
        time = min(log.duration, time + (realElapsed - last) * speed)
        let changed = advance(to: log.eventCount(atTime: time), model: &model)
        if time >= log.duration && position >= log.eventCount { playing = false }
        let before = model.replay?.position ?? 0
        publish(&model)
        return changed || Format.duration(before) != Format.duration(model.replay?.position ?? 0) || !playing
    }

    package func secondsUntilNextTick(realElapsed: Double, model: DashboardModel) -> Double? {
        guard playing else { return nil }
        let frame = 1.0 / 30
        let nextTime = position < log.eventCount ? log.events.time(at: position) : log.duration
        let wait = (nextTime - time) / speed
        return min(max(wait, frame), max(frame, 0.1 / speed))
    }

    package func perform(_ effect: DashboardEffect, key: Key, model: inout DashboardModel) {
        guard case .replay(let control) = effect else { return }
        switch control {
        case .playPause:
            if !playing && position >= log.eventCount && time >= log.duration {
                rebuild(at: log.eventCount(atTime: 0), model: &model) // play again from the start
                time = 0
            }
            playing.toggle()
        case .stepForward:
            playing = false
            if position < log.eventCount {
                _ = advance(to: position + 1, model: &model)
                time = log.events.time(at: position - 1)
            }
        case .stepBack:
            playing = false
            if position > 0 {
                rebuild(at: position - 1, model: &model)
                time = position > 0 ? log.events.time(at: position - 1) : 0
            }
        case .seekBack: seek(to: time - ReplaySource.seekStep, model: &model)
        case .seekForward: seek(to: time + ReplaySource.seekStep, model: &model)
        case .jump(let tenths): seek(to: log.duration * Double(min(max(tenths, 0), 9)) / 10, model: &model)
        case .nextMarker, .prevMarker:
            jump(markers.list(.succeeded), forward: control == .nextMarker, model: &model)
        case .nextFailed, .prevFailed:
            jump(markers.list(.failed), forward: control == .nextFailed, model: &model, noMore: .failed)
        case .nextCancelled, .prevCancelled:
            jump(markers.list(.cancelled), forward: control == .nextCancelled, model: &model, noMore: .cancelled)
        case .seek(let target):
            seek(to: target.seconds(in: log.duration), model: &model)
        case .find(let text):
            find(text, model: &model)
        case .slower: speed = max(ReplaySource.minSpeed, speed / 2)
        case .faster: speed = min(ReplaySource.maxSpeed, speed * 2)
        }
        publish(&model)
    }

    package func finish(source: String, model: inout DashboardModel) {}

    /// Seeks to the next / previous mark of `list` and pauses there, selecting its node;
    /// says so in the footer when there is none.
    private func jump(
        _ list: [ReplayMark], forward: Bool, model: inout DashboardModel, noMore: DisplayState? = nil
    ) {
        guard let mark = ReplayMarkers.step(list, from: position, time: time, forward: forward) else {
            model.view.message = noMore.map(Reducer.noMoreMessage) ?? "no more markers"
            return
        }
        playing = false
        seek(to: mark.time, model: &model)
        Reducer.reveal(&model, NodeIndex(mark.node))
    }

    /// Seeks to the next moment a node whose name (or progress info) contains `text` was
    /// added, renamed or started (or reported it), selecting that node. Names of nodes that start
    /// later are those of the tree shown now (a node added later is found by its `added`).
    private func find(_ text: String, model: inout DashboardModel) {
        let needle = Array(text.lowercased().unicodeScalars)
        let events = log.events
        var i = position
        while i < log.eventCount {
            let e = events[i]
            var node = -1
            switch e.change {
            case .added(let id, _, let name, _, _, _) where FilterCache.contains(name, needle): node = id.rawValue
            case .renamed(let id, let name) where FilterCache.contains(name, needle): node = id.rawValue
            case .progress(let id, let p) where p.info.map { FilterCache.contains($0, needle) } ?? false:
                node = id.rawValue
            case .stateChanged(let id, .executing, _, _):
                // A node there from the start appears when it starts.
                let name = model.tree.contains(id.rawValue) ? model.tree[id.rawValue].name : nil
                if let name, FilterCache.contains(name, needle) { node = id.rawValue }
            default: break
            }
            if node >= 0 {
                playing = false
                seek(to: e.time, model: &model)
                Reducer.reveal(&model, NodeIndex(node))
                model.view.message = "found " + Sanitizer.clean(text) + " at " + Format.duration(e.time)
                return
            }
            i += 1
        }
        model.view.message = "not found after here: " + Sanitizer.clean(text)
    }

    /// Moves the replay clock to `target` (clamped), rebuilding from a snapshot when going back.
    public func seek(to target: Double, model: inout DashboardModel) {
        time = min(max(0, target), log.duration)
        let count = log.eventCount(atTime: time)
        if count < position || count - position > eventsFromNearestTree(to: count) {
            rebuild(at: count, model: &model)
        } else {
            _ = advance(to: count, model: &model)
        }
    }

    private func advance(to count: Int, model: inout DashboardModel) -> Bool {
        guard count > position else { return false }
        absorb(position..<count, into: &model.tree)
        position = count
        model.updateOutcome()
        Reducer.applyFollow(&model)
        return true
    }

    /// The events between the nearest kept tree and `count`, plus the cost of copying it
    /// (about one event per two nodes).
    private func eventsFromNearestTree(to count: Int) -> Int {
        guard let k = nearestTree(to: count) else { return Int.max }
        return count - trees[k].count + trees[k].tree.liveCount / 2
    }

    private func nearestTree(to count: Int) -> Int? {
        var lo = 0
        var hi = trees.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if trees[mid].count <= count { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? lo - 1 : nil
    }

    /// One pass over the log, keeping a copy of the tree every max(minSpacing, 3 × nodes)
    /// events: a seek then applies at most that many events to a copy.
    private func buildTrees() {
        guard trees.isEmpty else { return }
        var tree = TreeModel(snapshot: log.snapshot(afterEvents: 0))
        trees = [(0, tree)]
        var done = 0
        let total = log.eventCount
        let events = log.events
        while done < total {
            let next = min(total, done + max(ReplaySource.minSpacing, 3 * tree.liveCount))
            tree.withDeferredRollUp { tree in
                for i in done..<next {
                    let event = events[i]
                    let change = ReplayMarkers.change(event)
                    let time = event.time
                    tree.absorb(event)
                    if change != nil { markers.note(i, change, time: time, tree: tree) }
                }
            }
            done = next
            if done < total { trees.append((done, tree)) }
        }
    }

    /// Events by index: each is built once and passed straight on (a slice's iterator
    /// would copy it on the way).
    private func absorb(_ range: Range<Int>, into tree: inout TreeModel) {
        let events = log.events
        tree.withDeferredRollUp { tree in
            for i in range { tree.absorb(events[i]) }
        }
    }

    private func rebuild(at count: Int, model: inout DashboardModel) {
        buildTrees()
        let k = nearestTree(to: count) ?? 0
        // A different tree: its structure version must not repeat one the view has seen.
        let version = max(model.tree.structureVersion, trees[k].tree.structureVersion) &+ 1
        model.tree = trees[k].tree
        model.tree.structureVersion = version
        absorb(trees[k].count..<count, into: &model.tree)
        position = count
        model.outcome = nil
        model.updateOutcome()
        Reducer.applyFollow(&model)
    }

    private func publish(_ model: inout DashboardModel) {
        model.clockNow = time
        var replay = model.replay ?? ReplayState()
        replay.position = time
        replay.duration = log.duration
        replay.speed = speed
        replay.playing = playing
        replay.marker = markers.passed(position)
        if replay.marks.count != markers.all.count { replay.marks = markers.all }
        model.replay = replay
    }

    /// Headless replay: the lines a headless live run of the same session printed (state
    /// lines, then the summary), from the log's events alone.
    /// How a recorded run ended as the dashboard judges it: a scenario run by its steps
    /// (`RunVerdict`), a run with restarts by the newest attempts (the log's `end` line counts
    /// the roots as they are); nil for any other log.
    package static func restartedOutcome(_ log: ReplayLog) -> RootOutcome? {
        guard log.hasAttempts || log.header.scenario != nil else { return nil }
        var model = DashboardModel(title: "")
        model.judgesSteps = log.header.scenario != nil
        // Every event, as the dashboard's replay absorbs them: cancel sources and attributes
        // (`allowFailure`) decide too.
        model.tree = TreeModel(snapshot: log.snapshot(afterEvents: 0))
        let events = log.events
        model.tree.withDeferredRollUp { tree in
            for i in 0..<log.eventCount { tree.absorb(events[i]) }
        }
        model.updateOutcome()
        return model.outcome
    }

    package static func headlessLines(_ log: ReplayLog, baseline: Baseline? = nil) -> [String] {
        let initial = log.initialSnapshot
        var printer = HeadlessPrinter(snapshot: initial)
        printer.baseline = baseline
        let out = printer.absorb(all: log.events)
        let root = log.finalSnapshot.roots.last
        return out + printer.summary(root: root)
    }
}

import TaskGraph

/// Everything the renderer needs: the graph as absorbed from events, the view state, and
/// what the source says about the session (title, clock, replay position).
public struct DashboardModel: Sendable {
    /// The live graph; events are absorbed here even while the display is paused.
    public var tree = TreeModel()
    /// The tree as it was when the person paused (nil when not paused): what is drawn.
    package var frozen: TreeModel?
    /// What the person did to the view: selection, scrolling, folds, panes, filter.
    public var view = ViewState()
    /// Header title: scenario or log name (sanitized when drawn).
    package var title: String
    /// Elapsed time on the graph clock, as the source last set it.
    package var clockNow: Double = 0
    /// The clock when the display was paused (what a frozen display shows).
    package var pausedClock: Double?
    /// The root whose outcome ends the session (-1: the first root).
    package var root: Int = -1
    /// Set when the root settled.
    package var outcome: RootOutcome?
    /// Said after the outcome in the header and the exit summary (attach: which program
    /// ended how).
    package var outcomeDetail: String?
    /// Earlier runs' durations (`taskview run`): time-based progress and the header's ETA.
    package var history: RunHistory?
    /// The run the Δ column (`d`) and the detail pane compare with (nil: none).
    package var baseline: Baseline?
    /// Where a replay stands, set by a replay source (see `DashboardSource`); nil: live.
    package var replay: ReplayState?
    /// A replay (or a followed log): read-only, with replay keys and the timeline strip.
    package var isReplay: Bool { replay != nil }
    /// Draw ASCII glyphs only.
    package var ascii = false
    /// Cached filter visibility (see `Filter`).
    var filterCache = FilterCache()

    /// Whether the source can restart nodes (`r`/`R`): a live scenario run.
    package var canRestart = false
    /// A restart's attempts are running: the run is live again, no outcome yet.
    package var restartsRunning = false
    /// A scenario run (live, or the replay of its log): its outcome is `RunVerdict`'s, from
    /// its steps, not the root's alone.
    package var judgesSteps = false

    /// An empty model whose header says `title`.
    public init(title: String) {
        self.title = title
    }

    /// The tree that is drawn and navigated: frozen while paused.
    package var shown: TreeModel { frozen ?? tree }

    /// Absorbs one graph event into the live tree.
    public mutating func absorb(_ event: GraphEvent) {
        tree.absorb(event)
    }

    /// The root the session is about (explicit, else the first live root).
    package var rootID: Int? {
        if root >= 0 { return tree.contains(root) ? root : nil }
        var first: Int?
        tree.forEachRoot {
            first = $0
            return false
        }
        return first
    }

    /// Updates `outcome` from the live tree; returns true when it changed.
    @discardableResult
    package mutating func updateOutcome() -> Bool {
        if !tree.attempts.isEmpty { tree.rejudge() } // the rows above restarted ones
        guard !restartsRunning, let r = rootID else { return false }
        if !tree.attempts.isEmpty {
            // Live again while a restart's attempts run (a replay of a restarted run too).
            let running = tree.hiddenRoots.contains { tree.contains($0) && !tree[$0].state.isSettled }
            if running || !tree[r].state.isSettled {
                guard outcome != nil else { return false }
                outcome = nil
                return true
            }
            guard outcome == nil else { return false }
            outcome = judgesSteps ? RunVerdict(tree: tree, root: r).outcome : tree.outcomeWithAttempts(root: r)
            return outcome != nil
        }
        guard outcome == nil else { return false }
        let node = tree[r]
        switch node.state {
        case .completed: outcome = node.failed ? .failed : .succeeded
        case .cancelled: outcome = .cancelled
        default: return false
        }
        if judgesSteps { outcome = RunVerdict(tree: tree, root: r).outcome }
        return outcome != nil
    }
}

/// Where a replay stands: what the header and the timeline strip show of it.
package struct ReplayState: Sendable {
    /// Seconds into the log shown now.
    package var position: Double = 0
    /// The log's length in seconds.
    package var duration: Double = 0
    /// Playback speed (1: as recorded).
    package var speed: Double = 1
    /// Playing (false: paused).
    package var playing = true
    /// The replay's markers (failures, cancels, roots settling), for the timeline strip.
    package var marks: [ReplayMark] = []
    /// Markers at or before the position (the header's `marker 3/17`).
    package var marker = 0

    /// The start of a replay: at 0, playing at speed 1, no markers yet.
    package init() {}
}

import TaskGraph
import TaskViewCore

/// `taskview attach` in the dashboard: the programs' trees under one row each, updated
/// from their connections (read on their own threads); x/X cancel in the program. The
/// header's clock is real time since attaching. Quitting closes the connections and
/// cancels nothing in the programs.
public final class AttachSource: DashboardSource {
    package let session: AttachSession
    package let title: String
    /// Called for keys that cancelled something (the replay log's `key` events).
    let onKey: ((String, NodeID?) -> Void)?
    /// A failed write of the recording (`--record`), for the footer.
    package var writeFailure = WriteFailureNotice()

    /// The dashboard of `session`, its header saying `title`; `onKey` hears the keys that
    /// cancelled something.
    public init(session: AttachSession, title: String, onKey: ((String, NodeID?) -> Void)? = nil) {
        self.session = session
        self.title = title
        self.onKey = onKey
    }

    /// What one tick takes at most: an attached event costs about 10 µs (translated, folded,
    /// recorded), so about 20 ms of work; a live run's in-process events are cheaper
    /// (`LiveGraphSource.eventsPerTick`).
    package static let eventsPerTick = 2048

    /// Sets the title and takes what has arrived (see `DashboardSource.start`).
    public func start(model: inout DashboardModel) {
        model.title = title
        _ = tick(realElapsed: 0, model: &model)
    }

    /// Takes what the connections received (see `DashboardSource.tick`).
    public func tick(realElapsed: Double, model: inout DashboardModel) -> Bool {
        let before = Format.duration(model.clockNow)
        // A tick's worth at most: a key waits for one bounded batch.
        let (changed, errors) = session.pump(tree: &model.tree, now: realElapsed, limit: Self.eventsPerTick)
        if let last = errors.last {
            model.view.message = last
            sentCancel = nil
        }
        let failure = writeFailure.message(realElapsed: realElapsed)
        if let failure { model.view.message = failure }
        if changed { answerSentCancel(&model) }
        model.clockNow = realElapsed
        if changed { Reducer.applyFollow(&model) }
        var done = false
        if model.outcome == nil && session.allEnded && session.watchDirectory == nil {
            // Every program has ended: the session is done, with the programs' own outcome.
            model.outcome = session.outcome
            model.outcomeDetail = session.endings
            done = true
        }
        return changed || done || failure != nil || before != Format.duration(realElapsed)
    }

    package func secondsUntilNextTick(realElapsed: Double, model: DashboardModel) -> Double? {
        if session.allEnded, let rescan = session.secondsUntilRescan(now: realElapsed) { return max(rescan, 1.0 / 30) }
        if session.allEnded { return nil }
        // Data wakes the loop through `wakeDescriptors`; time only moves the header clock.
        let wait = Format.secondsUntilDurationChanges(realElapsed)
        return min(wait, session.secondsUntilRescan(now: realElapsed) ?? wait)
    }

    /// The connections' wake pipe: streamed lines are drawn as soon as they arrive.
    package var wakeDescriptors: [Int32] { session.wakeDescriptor.map { [$0] } ?? [] }

    /// The connection threads keep reading the sockets meanwhile: what arrives while a frame
    /// is pending is taken once, at that frame (its superseded progress folded).
    package var takesDataPerFrame: Bool { true }

    package func perform(_ effect: DashboardEffect, key: Key, model: inout DashboardModel) {
        guard case .cancel(let id, _) = effect, model.tree.contains(id.rawValue) else { return }
        let node = id.rawValue
        let name = model.tree[node].name
        model.view.message = session.cancel(local: node, name: name, tree: model.tree)
        onKey?(key.name, NodeID(node))
        let preview = CancelPreview(tree: model.tree, display: model.displayTree(), node: node)
        // A program row (no `program` above it) cancels roots: no one node answers.
        sentCancel = preview.cancellable && preview.program != nil ? preview : nil
    }

    /// The last cancel sent to a program, until the node it reaches settles.
    var sentCancel: CancelPreview?

    /// The program answers a cancel with the node's end: when it settled otherwise than
    /// cancelled, the cancel found it finished, and the message says so.
    func answerSentCancel(_ model: inout DashboardModel) {
        guard let sent = sentCancel, model.tree.contains(sent.target) else { return }
        let display = model.tree.nodes[sent.target].display
        guard display.isFinal else { return }
        sentCancel = nil
        if display == .succeeded || display == .failed { model.view.message = sent.finishedMessage }
    }

    /// Whether the session ended by a signal (exit 130) rather than by quitting.
    package private(set) var endedBySignal = false

    /// The session's exit status: 130 after a signal, else the programs' outcome once every
    /// one has ended (0, 1, 130), else 130 (the person quit while programs ran).
    package var exitStatus: Int32 { endedBySignal ? 130 : session.exitStatus }

    package func finish(source: String, model: inout DashboardModel) {
        endedBySignal = source == ViewerCancelSource.signal
        session.stop()
    }
}

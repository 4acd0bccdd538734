/// The seam between the dashboard loop and where events come from.
///
/// The loop (TaskViewTerminal's `DashboardLoop`) owns the terminal and the model; a
/// source owns time and events. Per iteration the loop:
/// 1. waits for a key at most `secondsUntilNextTick` (nil: until a key or a signal), or
///    until one of the source's `wakeDescriptors` is readable (events arrived),
/// 2. runs the key through `Reducer` and hands each resulting `DashboardEffect` to
///    `perform` (a live source cancels through `Graph.cancel(_:source:)`; a replay source
///    implements the `.replay(Action)` controls: play/pause, step, seek, jump, speed),
/// 3. calls `tick` with the real seconds since the loop started, and redraws when the
///    model changed (at most ~30 times a second).
///
/// A live graph is `LiveGraphSource`. A replay source sets `model.replay` (a `ReplayState`)
/// in `start`, keeps its position, duration, speed, playing and markers current,
/// and feeds events through `model.absorb(_:)` (or replaces `model.tree` after a seek,
/// keeping `model.view`). The key table already maps the replay-only keys (space . , ← →
/// 0-9 < >) to `.replay` effects and answers x/X with "read-only" for replays.
/// All calls happen on the main thread.
package protocol DashboardSource: AnyObject {
    /// Fills the model before the first frame (title, tree seeded from a snapshot, ...).
    func start(model: inout DashboardModel)
    /// Brings the model up to `realElapsed` seconds of real time since the start; returns
    /// true when the model changed.
    func tick(realElapsed: Double, model: inout DashboardModel) -> Bool
    /// Real seconds until `tick` next has work (nil: nothing until a key).
    func secondsUntilNextTick(realElapsed: Double, model: DashboardModel) -> Double?
    /// Descriptors that become readable when events arrive for the source (the reading
    /// end of a wake pipe): the loop waits on them together with the terminal, so data is
    /// drawn at once without polling at frame rate. `tick` must leave them unreadable
    /// (drain what it reads). Default: none.
    var wakeDescriptors: [Int32] { get }
    /// Whether data arriving while a frame is pending may wait for that frame and be taken
    /// once, just before it (`FramePacer`): for a source whose own threads read everything
    /// and fold it (attach). False where senders wait on the loop (a live graph's output
    /// flood is held back until the loop takes it). Default: false.
    var takesDataPerFrame: Bool { get }
    /// Carries out an effect of `key`.
    func perform(_ effect: DashboardEffect, key: Key, model: inout DashboardModel)
    /// The session ends (quit key or signal) while the model may still run: a live source
    /// cancels its root with `source` (`quit` or `signal`) and absorbs the result.
    func finish(source: String, model: inout DashboardModel)
    /// The file holding the whole output of command `node` (what `o` opens in the pager),
    /// nil when none is kept. Default: none.
    func outputFile(node: NodeIndex, model: DashboardModel) -> String?
    /// The run's recent state changes and output lines, for plain mode (`p`); nil: none.
    var plainFeed: PlainFeed? { get }
}

extension DashboardSource {
    /// No descriptors: the source's time moves only by `secondsUntilNextTick`.
    package var wakeDescriptors: [Int32] { [] }

    package var takesDataPerFrame: Bool { false }

    package func outputFile(node: NodeIndex, model: DashboardModel) -> String? { nil }

    package var plainFeed: PlainFeed? { nil }
}

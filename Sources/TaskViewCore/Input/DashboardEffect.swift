/// What a key asks the outside world to do; the reducer stays pure and the source
/// (live graph or replay) carries these out.
package enum DashboardEffect: Sendable, Equatable {
    /// Cancel this node through `Graph.cancel(_:source:)`.
    case cancel(node: NodeIndex, source: String)
    /// Restart this settled row and the nodes skipped because of it (a live scenario run);
    /// `withNeeds`: first the rows it needs, transitively (`a` at the question).
    case restart(row: RowIndex, withNeeds: Bool = false)
    /// A replay-only control (see `DashboardSource`).
    case replay(ReplayControl)
    /// Show command `node`'s whole output in the pager (the terminal layer does it).
    case openOutput(node: NodeIndex)
    /// Plain mode: the terminal's own screen, lines as they come, until a key.
    case plainMode
}

/// What a replay source is asked to do (`DashboardEffect.replay`): a switch over these is
/// exhaustive, so a new control does not compile until every replay source handles it.
package enum ReplayControl: Hashable, Sendable {
    /// Play or pause (space); at the end, play again from the start.
    case playPause
    /// One event forward / back (`.` / `,`), paused.
    case stepForward, stepBack
    /// A few seconds back / forward (← / →).
    case seekBack, seekForward
    /// To a tenth of the log (0-9).
    case jump(tenths: Int)
    /// Half / double speed (`<` / `>`).
    case slower, faster
    /// The previous / next marker (`[` / `]`).
    case prevMarker, nextMarker
    /// The next / previous moment a node failed or was cancelled (`n` `N` `c` `C`).
    case nextFailed, prevFailed, nextCancelled, prevCancelled
    /// To a time typed at the `t` prompt.
    case seek(SeekTarget)
    /// The next moment a node with this name or info appeared (`F` prompt).
    case find(String)
}

/// taskview's own cancel labels (the `source` of a cancel it asks for; the library's own
/// labels are `CancelSource`).
package enum ViewerCancelSource {
    /// `x` then `y` on a row.
    package static let keyboard = "keyboard"
    /// Quitting while the graph runs.
    package static let quit = "quit"
    /// SIGINT, SIGTERM or SIGHUP while the graph runs.
    package static let signal = "signal"
}

/// What a key asks the outside world to do; the reducer stays pure and the source
/// (live graph or replay) carries these out.
public enum DashboardEffect: Sendable, Equatable {
    /// Cancel this node through `Graph.cancel(_:source:)`.
    case cancel(node: Int, source: String)
    /// Restart this settled node and the nodes skipped because of it (a live scenario run).
    case restart(node: Int)
    /// A replay-only control (see `DashboardSource`).
    case replay(Action)
    /// Show command `node`'s whole output in the pager (the terminal layer does it).
    case openOutput(node: Int)
    /// Plain mode: the terminal's own screen, lines as they come, until a key.
    case plainMode
}

/// taskview's own cancel labels (the `source` of a cancel it asks for; the library's own
/// labels are `CancelSource`).
public enum ViewerCancelSource {
    /// `x` then `y` on a row.
    public static let keyboard = "keyboard"
    /// Quitting while the graph runs.
    public static let quit = "quit"
    /// SIGINT, SIGTERM or SIGHUP while the graph runs.
    public static let signal = "signal"
}

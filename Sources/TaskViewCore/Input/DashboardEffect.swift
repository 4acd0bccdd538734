/// What a key asks the outside world to do; the reducer stays pure and the source
/// (live graph or replay) carries these out.
public enum DashboardEffect: Sendable, Equatable {
    /// Cancel this node through `Graph.cancel(_:source:)`.
    case cancel(node: Int, source: String)
    /// A replay-only control (see `DashboardSource`).
    case replay(Action)
}

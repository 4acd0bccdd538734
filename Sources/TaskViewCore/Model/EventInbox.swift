import Synchronization
import TaskGraph

/// Collects a graph's events from its synchronous observer (which may run on any thread)
/// for the main loop to absorb in batches, and notes when a given root settles.
public final class EventInbox: Sendable {
    private struct State {
        var events: [GraphEvent] = []
        var rootSettled = false
    }

    private let state = Mutex(State())
    private let root: Int

    /// Watches for `root` settling.
    public init(root: NodeID) {
        self.root = root.rawValue
    }

    /// The observer callback.
    public func receive(_ event: GraphEvent) {
        state.withLock { s in
            s.events.append(event)
            if case let .stateChanged(id, st, _, _) = event.change, id.rawValue == root, st.isSettled {
                s.rootSettled = true
            }
        }
    }

    /// Whether the root has settled (seen among received events).
    public var rootSettled: Bool { state.withLock { $0.rootSettled } }

    /// Takes every event received so far.
    public func drain() -> [GraphEvent] {
        state.withLock { s in
            let out = s.events
            s.events.removeAll(keepingCapacity: true)
            return out
        }
    }
}

import Synchronization
import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Collects a graph's events from its synchronous observer (which may run on any thread)
/// for the main loop to absorb in batches, and notes when a given root settles. With
/// `wakeable`, a pipe becomes readable when events wait (one byte per batch, never per
/// event; the write never blocks the graph's threads).
package final class EventInbox: Sendable {
    private struct State {
        var events: [GraphEvent] = []
        var rootSettled = false
    }

    private let state = Mutex(State())
    private let root: Int
    private let wake: WakePipe?
    /// Whether output senders are held back past `floodLimit`.
    private let holdsBack: Bool
    private var wakeRead: Int32 { wake?.read ?? -1 }
    private var wakeWrite: Int32 { wake?.write ?? -1 }

    /// Watches for `root` settling; `wakeable` adds the wake pipe (`wakeDescriptor`).
    /// `holdsBackOutput` (default: `wakeable`) holds output senders back past `floodLimit`:
    /// only for an inbox drained by a thread that never sends output itself.
    package init(root: NodeID, wakeable: Bool = false, holdsBackOutput: Bool? = nil) {
        self.root = root.rawValue
        wake = wakeable ? WakePipe() : nil
        holdsBack = holdsBackOutput ?? wakeable
    }

    /// Readable while events wait to be drained (nil without the wake pipe).
    package var wakeDescriptor: Int32? { wakeRead >= 0 ? wakeRead : nil }

    /// Events waiting past which the sender of an output line is held back a little (see
    /// `init`): a flood of output then waits in the commands' pipes, not in memory.
    package static let floodLimit = 131_072

    /// The observer callback.
    package func receive(_ event: GraphEvent) {
        let (wasEmpty, waiting) = state.withLock { s in
            let empty = s.events.isEmpty
            s.events.append(event)
            if case .stateChanged(let id, let st, _, _) = event.change, id.rawValue == root, st.isSettled {
                s.rootSettled = true
            }
            return (empty, s.events.count)
        }
        if wasEmpty && wakeWrite >= 0 {
            var b: UInt8 = 1
            _ = write(wakeWrite, &b, 1) // full pipe: a wake is pending anyway
        }
        if waiting > Self.floodLimit && holdsBack, case .output = event.change { holdBack() }
    }

    /// Waits until the loop has taken the waiting events (down to half the limit), at most
    /// ~50 ms: the sender may hold graph locks the loop's thread needs (a cancel), so it
    /// never waits for the loop unboundedly.
    private func holdBack() {
        for _ in 0..<50 {
            usleep(1_000)
            if state.withLock({ $0.events.count }) <= Self.floodLimit / 2 { return }
        }
    }

    /// Whether the root has settled (seen among received events).
    package var rootSettled: Bool { state.withLock { $0.rootSettled } }

    /// Takes every event received so far.
    package func drain() -> [GraphEvent] {
        if wakeRead >= 0 {
            // Emptied before the events are taken: a batch posted meanwhile wakes again.
            var buf = (0 as UInt64, 0 as UInt64)
            while withUnsafeMutableBytes(of: &buf, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
        }
        return state.withLock { s in
            let out = s.events
            s.events.removeAll(keepingCapacity: true)
            return out
        }
    }
}

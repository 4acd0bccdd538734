/// A graph's events handed from the program's threads to work done elsewhere (spans, for
/// TaskGraphTracing): on each event the program's thread only packs it into a `Spool`, as the
/// recorder does, and a consumer takes the events in order, in batches, on a thread of its
/// own, or on whichever thread calls `drain` first (a `flushObservers()`, a query that must
/// see everything so far). `package`: TaskGraphTracing is the consumer; the spool stays
/// specialized here.
///
/// A consumer that falls `maxBacklog` events behind makes the program's threads wait for it,
/// at most `stallSeconds` without progress, then later events are dropped (as a recorder's).
// The spool locks itself; `drain` and `pendingNote` are serialized by the caller.
package final class EventRelay: @unchecked Sendable {
    /// Events queued before the program's threads wait for the consumer.
    package static let maxBacklog = 64 * 4096
    /// How long a program's thread waits for a consumer that makes no progress (seconds).
    package static let stallSeconds = 1.0

    private let spool = Spool<SpooledEvent>(
        chunkSize: 4096, maxChunks: EventRelay.maxBacklog / 4096,
        overflow: .wait(seconds: EventRelay.stallSeconds), prepared: 4)

    /// A note whose event is not taken yet: the two may straddle two chunks (when the note
    /// fills one), and so two drains. Consumer side, like `drain`.
    @exclusivity(unchecked) private var pendingNote: AnyObject?

    package init() {}

    /// Registers with `graph` as a keeping observer (atomically with the snapshot the events
    /// continue). `note` runs on the program's thread for each node that starts executing;
    /// what it returns (when not nil) reaches the consumer with that event (say, the caller's
    /// task-local trace context). `owner` lives as long as the observation. Events the
    /// consumer has no use for (`textOnly`: progress without an `info` text, output lines,
    /// `ref` links) are not queued at all.
    package func observe(
        _ graph: Graph, owner: AnyObject & Sendable, textOnly: Bool,
        note: @escaping @Sendable () -> AnyObject?,
        flush: @escaping @Sendable () -> Void
    ) -> (snapshot: GraphSnapshot, observation: any GraphObservation) {
        let spool = self.spool
        return graph.snapshotAndKeep(
            owner: owner,
            { (event: consuming GraphEvent) in
                if textOnly, event.change.isNoise { return }
                if event.change.startsExecution, let n = note() {
                    _ = spool.append(.note(n), .item(PackedItem(event)))
                } else {
                    _ = spool.append(.item(PackedItem(event)))
                }
            },
            pair: { (first: consuming GraphEvent, second: consuming GraphEvent) in
                spool.appendPair(first, second) { .item($0) } // a cancel and its state change: never a start
            }, flush: flush)
    }

    /// Runs `step` on a thread of its own each time a chunk of events is full or
    /// `milliseconds` passed, until it returns false. The thread never keeps the process alive.
    package func startConsumer(milliseconds: Int, _ step: @escaping @Sendable () -> Bool) {
        let spool = self.spool
        WriterThread {
            spool.waitForWork(milliseconds: milliseconds)
            return step()
        }.start()
    }

    /// Hands every event queued so far to `body`, in order, with the note taken for it. Calls
    /// must not overlap (the consumer holds its own lock around them).
    package func drain(_ body: (consuming GraphEvent, AnyObject?) -> Void) {
        spool.drain { (entry: consuming SpooledEvent) in
            switch consume entry {
            case .note(let n): pendingNote = n
            case .item(let item):
                item.forEachEvent { body($0, pendingNote) }
                pendingNote = nil
            }
        }
    }

    /// Later events are dropped; a sleeping consumer wakes.
    package func close() { spool.close() }

    /// Whether events were dropped because the consumer made no progress for `stallSeconds`.
    package var failed: Bool { spool.failed }
}

extension GraphChange {
    /// Whether this is a node's change to `executing` (a look at the state only, no payload copied).
    @inline(__always)
    var startsExecution: Bool {
        if case .stateChanged(_, .executing, _, _) = self { return true }
        return false
    }

    /// Progress without `info` text, an output line, a `ref` link.
    @inline(__always)
    var isNoise: Bool {
        switch self {
        case .progress(_, let progress): progress.info == nil
        case .output, .ref: true
        default: false
        }
    }
}

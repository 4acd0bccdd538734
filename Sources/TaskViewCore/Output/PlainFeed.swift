import TaskGraph

/// What plain mode (`p`) prints: the last `capacity` state changes and output lines of a
/// live run, kept as events (formatted only when printed), so the lines missed while the
/// dashboard was drawn can be printed first. Used from the dashboard's thread only.
package final class PlainFeed {
    /// Lines kept for printing later.
    package static let capacity = 1000

    private var ring: [GraphEvent] = []
    private var head = 0
    /// Printable events seen in all (kept or not).
    package private(set) var total = 0

    package init() {}

    /// Keeps the events among `events` that plain mode prints (state changes, output lines).
    /// Only the last `capacity` of a batch can stay, so only those are copied (a flood of
    /// output lines costs one test per event, not one copy).
    package func record(_ events: [GraphEvent]) {
        var from = events.count
        var kept = 0
        while from > 0 && kept < Self.capacity {
            from -= 1
            if Self.prints(events[from]) { kept += 1 }
        }
        var skipped = 0
        for k in 0..<from where Self.prints(events[k]) { skipped += 1 }
        total += skipped
        for k in from..<events.count where Self.prints(events[k]) {
            total += 1
            if ring.count < Self.capacity {
                ring.append(events[k])
            } else {
                ring[head] = events[k]
                head = (head + 1) % Self.capacity
            }
        }
    }

    /// Whether plain mode prints `event`: an output line or a state change past not executed.
    static func prints(_ event: GraphEvent) -> Bool {
        switch event.change {
        case .output: true
        case .stateChanged(_, let state, _, _): state != .notExecuted
        default: false
        }
    }

    /// The kept events after the first `seen` (counted like `total`), oldest first, and
    /// how many after `seen` are no longer kept.
    package func events(after seen: Int) -> (events: [GraphEvent], dropped: Int) {
        let oldest = total - ring.count
        let from = max(seen, oldest)
        guard from < total else { return ([], 0) }
        var out: [GraphEvent] = []
        out.reserveCapacity(total - from)
        for k in from..<total { out.append(ring[(head + (k - oldest)) % ring.count]) }
        return (out, from - max(seen, 0))
    }

    /// The plain line of an event once `tree` absorbed it: `[T] #ID NAME: STATE` or
    /// `[T] #ID NAME | TEXT` (stderr lines marked: `[T] #ID NAME | ! TEXT`), as headless prints them.
    package static func line(for event: GraphEvent, in tree: TreeModel) -> String? {
        if case .output(let id, let stream, let text) = event.change, tree.contains(id.rawValue) {
            return "[" + Format.seconds3(event.time) + "] #\(id.rawValue) " + Sanitizer.clean(tree[id.rawValue].name)
                + (stream == .stderr ? " | ! " : " | ") + Sanitizer.clean(text)
        }
        return HeadlessPrinter.line(for: event, in: tree)
    }
}

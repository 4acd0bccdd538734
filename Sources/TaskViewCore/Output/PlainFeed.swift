import TaskGraph

/// What plain mode (`p`) prints: the last `capacity` state changes and output lines of a
/// live run, kept as events (formatted only when printed), so the lines missed while the
/// dashboard was drawn can be printed first. Used from the dashboard's thread only.
public final class PlainFeed {
    /// Lines kept for printing later.
    public static let capacity = 1000

    private var ring: [GraphEvent] = []
    private var head = 0
    /// Printable events seen in all (kept or not).
    public private(set) var total = 0

    public init() {}

    /// Keeps the events among `events` that plain mode prints (state changes, output lines).
    public func record(_ events: [GraphEvent]) {
        for e in events {
            switch e.change {
            case .output: break
            case .stateChanged(_, let state, _, _) where state != .notExecuted: break
            default: continue
            }
            total += 1
            if ring.count < Self.capacity {
                ring.append(e)
            } else {
                ring[head] = e
                head = (head + 1) % Self.capacity
            }
        }
    }

    /// The kept events after the first `seen` (counted like `total`), oldest first, and
    /// how many after `seen` are no longer kept.
    public func events(after seen: Int) -> (events: [GraphEvent], dropped: Int) {
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
    public static func line(for event: GraphEvent, in tree: TreeModel) -> String? {
        if case .output(let id, let stream, let text) = event.change, tree.contains(id.rawValue) {
            return "[" + Format.seconds3(event.time) + "] #\(id.rawValue) " + Sanitizer.clean(tree[id.rawValue].name)
                + (stream == .stderr ? " | ! " : " | ") + Sanitizer.clean(text)
        }
        return HeadlessPrinter.line(for: event, in: tree)
    }
}

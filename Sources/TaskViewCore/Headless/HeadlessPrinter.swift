import TaskGraph

/// The headless output: one line per state change, then a summary. It is fed by
/// `GraphEvent`s only, so a live run and the replay of its log print the same bytes.
///
/// Lines: `[T] #ID NAME: executing` / `succeeded` / `failed: MESSAGE` / `cancelled (SOURCE)`
/// / `skipped (needs core, which failed)` (a node skipped by `needs`),
/// T in seconds on the graph clock with three decimals, names and messages sanitized.
package struct HeadlessPrinter: Sendable {
    /// Everything absorbed so far (names, states, counts) for the summary.
    package private(set) var tree: TreeModel
    /// Also print commands' output lines: `[T] #ID NAME | TEXT` (`--output`).
    package var showOutput = false
    /// Earlier runs' durations: state lines end with the run's ETA when one is known.
    package var history: RunHistory?
    /// The run compared with at the end (`RunComparison.reportLines` after the report).
    package var baseline: Baseline?

    /// Starts empty, or from the snapshot the events continue.
    package init(snapshot: GraphSnapshot? = nil) {
        tree = snapshot.map(TreeModel.init(snapshot:)) ?? TreeModel()
    }

    /// Absorbs an event; returns the line to print for a state change (nil otherwise).
    package mutating func absorb(_ event: GraphEvent) -> String? {
        tree.absorb(event)
        return Self.line(after: event, in: tree, showOutput: showOutput, history: history)
    }

    /// Absorbs events in order; returns their lines. Linear in the events however deep the
    /// tree: no line reads subtree counts, so they are rolled up once at the end.
    package mutating func absorb<S: Sequence>(all events: S) -> [String] where S.Element == GraphEvent {
        let (showOutput, history) = (showOutput, history)
        return tree.withDeferredRollUp { tree in
            var lines: [String] = []
            for e in events {
                tree.absorb(e)
                if let line = Self.line(after: e, in: tree, showOutput: showOutput, history: history) {
                    lines.append(line)
                }
            }
            return lines
        }
    }

    private static func line(
        after event: GraphEvent, in tree: TreeModel, showOutput: Bool, history: RunHistory?
    ) -> String? {
        if showOutput, let line = outputLine(for: event, in: tree) { return line }
        guard let line = line(for: event, in: tree) else { return nil }
        guard let history, let left = history.remaining(in: tree, now: event.time), left.seconds > 0 else {
            return line
        }
        return line + "  (ETA " + Format.duration(left.seconds) + ")"
    }

    /// `[T] #ID NAME | TEXT` for a command's output line (`--output`), sanitized.
    package static func outputLine(for event: GraphEvent, in tree: TreeModel) -> String? {
        guard case .output(let id, _, let text) = event.change, tree.contains(id.rawValue) else { return nil }
        return "[" + Format.seconds3(event.time) + "] #\(id.rawValue) " + tree[id.rawValue].name + " | "
            + Sanitizer.clean(text)
    }

    /// The line for `event` once `tree` has absorbed it (nil: not a state change to print).
    package static func line(for event: GraphEvent, in tree: TreeModel) -> String? {
        if case .warn(let id, _, let text) = event.change {
            return warningLine(id: id.rawValue, text: text, time: event.time, in: tree)
        }
        guard case .stateChanged(let id, let state, let failed, let message) = event.change,
            tree.contains(id.rawValue)
        else { return nil }
        // A node with `needs` is its `after` node and the task inside: the task's lines say
        // when it runs; the `after` node's only when it ends without running it.
        if tree[id.rawValue].kind == NodeKind.after, state != .cancelled { return nil }
        let head = "[" + Format.seconds3(event.time) + "] #\(id.rawValue) " + tree[id.rawValue].name + ": "
        switch state {
        case .notExecuted:
            return nil
        case .executing:
            return head + "executing"
        case .completed:
            guard failed else { return head + "succeeded" }
            return head + "failed: " + Sanitizer.clean(message ?? "error") + allowed(id.rawValue, in: tree)
        case .cancelled:
            if tree[id.rawValue].skippedByNeeds {
                return head + "skipped (" + Sanitizer.clean(tree[id.rawValue].info ?? "needs") + ")"
                    + allowed(id.rawValue, in: tree)
            }
            let source = tree[id.rawValue].cancelSource.map { Sanitizer.clean($0) } ?? "unknown"
            return head + "cancelled (" + source + ")"
        }
    }

    /// `[T] ⚠ build/core: slow: 3.4× its usual 12s` when a warning begins (nil when one ends).
    static func warningLine(id: Int, text: String?, time: Double, in tree: TreeModel) -> String? {
        guard let text, tree.contains(id) else { return nil }
        return "[" + Format.seconds3(time) + "] ⚠ " + NodePath.of(id, in: tree) + ": " + Sanitizer.clean(text)
    }

    /// ` (allowed)` after the failure of a step marked `allowFailure`.
    static func allowed(_ id: Int, in tree: TreeModel) -> String {
        tree.allowsFailure(id) ? " (allowed)" : ""
    }

    /// The summary block: `Summary:` with the counts, the duration (graph clock until
    /// `root` settled; the last event's time if it never did), then the tree in ASCII with
    /// each node's final state, then the run's report (`RunReport`: first failure, critical
    /// path, slowest commands).
    package func summary(root: NodeID? = nil) -> [String] {
        HeadlessSummary(tree: tree).lines(root: root?.rawValue) + RunReport(tree: tree, flaky: history?.flaky).lines
            + (baseline?.reportLines(tree) ?? [])
    }
}

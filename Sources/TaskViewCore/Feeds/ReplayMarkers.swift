import TaskGraph

/// A moment worth jumping to in a replay: a node failed, was cancelled, or a root settled.
/// Events at the same time make one marker (a cancelled subtree is one moment, not a
/// thousand).
package struct ReplayMark: Sendable, Equatable {
    /// Index of the first event of the moment in the log.
    package var event: Int
    /// Time on the recorded clock.
    package var time: Double
    /// `failed` or `cancelled`; for a root settling, its outcome (`succeeded` too).
    package var state: DisplayState
    /// The node the first event is about.
    package var node: Int
    /// A root settled at this moment.
    package var rootSettled: Bool
}

/// The markers of a log, and the moments nodes failed or were cancelled (what `n`/`c`
/// seek to), collected in the one pass over the log a replay makes anyway.
package struct ReplayMarkers {
    package private(set) var all: [ReplayMark] = []
    private(set) var failures: [ReplayMark] = []
    private(set) var cancels: [ReplayMark] = []

    /// No markers yet.
    package init() {}

    /// Notes event `i` after `tree` absorbed it.
    package mutating func note(_ i: Int, _ change: Change?, time: Double, tree: TreeModel) {
        guard let change, tree.contains(change.node) else { return }
        let isRoot = tree[change.node].parent < 0
        guard change.state == .failed || change.state == .cancelled || isRoot else { return }
        let mark = ReplayMark(event: i, time: time, state: change.state, node: change.node, rootSettled: isRoot)
        if all.last?.time != time { all.append(mark) } else if isRoot { all[all.count - 1].rootSettled = true }
        if change.state == .failed && failures.last?.time != time { failures.append(mark) }
        if change.state == .cancelled && cancels.last?.time != time { cancels.append(mark) }
    }

    /// What an event that settles a node says (nil: any other event).
    package struct Change {
        package var node: Int
        package var state: DisplayState
    }

    package static func change(_ e: GraphEvent) -> Change? {
        guard case .stateChanged(let id, let state, let failed, _) = e.change, state.isSettled else { return nil }
        return Change(node: id.rawValue, state: state == .cancelled ? .cancelled : failed ? .failed : .succeeded)
    }

    /// The list `n`/`N` (failed) or `c`/`C` (cancelled) walks.
    package func list(_ state: DisplayState) -> [ReplayMark] {
        state == .failed ? failures : state == .cancelled ? cancels : all
    }

    /// The first mark of `list` whose moment is not yet shown at replay position `count`
    /// (events applied), or the last one before the moment shown (`forward` false).
    package static func step(_ list: [ReplayMark], from count: Int, time: Double, forward: Bool) -> ReplayMark? {
        if forward { return list.first { $0.event >= count } }
        return list.last { $0.time < time }
    }

    /// Markers at or before the position (what the header's `marker k/N` counts).
    package func passed(_ count: Int) -> Int {
        var lo = 0
        var hi = all.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if all[mid].event < count { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

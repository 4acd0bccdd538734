import TaskGraph

/// Plain mode (`--plain`, `TERM=dumb`): the headless lines as the run happens, paced against
/// real time like the dashboard, and a line every `runningEvery` seconds of graph time
/// saying what is running (`[T] running: a, b, c (+4)`), for screen readers, Emacs shells
/// and CI logs that want to see progress.
package struct PlainPacing: Sendable {
    /// Simulated seconds per real second (a virtual clock only).
    package var speed: Double
    /// Graph seconds between `running:` lines.
    package var runningEvery: Double
    /// Sleeps this many real seconds (tests pass one that returns at once).
    package var wait: @Sendable (Double) -> Void
    /// Real seconds since some fixed point (tests pass a clock that follows `wait`).
    package var realNow: @Sendable () -> Double

    package init(
        speed: Double = 1, runningEvery: Double = defaultRunningEvery, wait: @escaping @Sendable (Double) -> Void,
        realNow: @escaping @Sendable () -> Double
    ) {
        self.speed = speed > 0 && speed.isFinite ? speed : 1
        self.runningEvery = runningEvery
        self.wait = wait
        self.realNow = realNow
    }

    /// Seconds between `running:` lines: 10.
    package static let defaultRunningEvery = 10.0

    /// How many names a `running:` line spells out before `(+N)`.
    package static let namesShown = 3

    /// `[T] running: a, b, c (+4)`: the executing nodes with no executing child (what is
    /// actually at work), in creation order; nil when nothing executes.
    package static func runningLine(_ tree: TreeModel, time: Double) -> String? {
        guard tree.counts[DisplayState.executing.rawValue] > 0 else { return nil }
        var names: [String] = []
        var more = 0
        for id in tree.nodes.ids where tree.contains(id) {
            let n = tree[id]
            guard n.display == .executing, n.subtree.count(.executing) == 1 else { continue }
            if names.count < namesShown { names.append(n.name) } else { more += 1 }
        }
        return line(names, more: more, time: time)
    }

    /// The `running:` line for the subtree under `row` (not counting `row` itself), in tree
    /// order: what one attached program is doing. Walks only branches where something
    /// executes.
    package static func runningLine(_ tree: TreeModel, under row: Int, time: Double) -> String? {
        guard tree.contains(row), tree[row].subtree.count(.executing) > 0 else { return nil }
        var names: [String] = []
        var more = 0
        var stack = tree[row].children.reversed().map(Int.init)
        while let id = stack.popLast() {
            guard tree.contains(id) else { continue }
            let n = tree[id]
            let below = n.subtree.count(.executing)
            if below == 0 { continue }
            if n.display == .executing && below == 1 {
                if names.count < namesShown { names.append(n.name) } else { more += 1 }
                continue
            }
            stack.append(contentsOf: n.children.reversed().map(Int.init))
        }
        return line(names, more: more, time: time)
    }

    private static func line(_ names: [String], more: Int, time: Double) -> String? {
        if names.isEmpty { return nil }
        var line = "[" + Format.seconds3(time) + "] running: " + names.joined(separator: ", ")
        if more > 0 { line += " (+\(more))" }
        return line
    }
}

import TaskGraph
import TaskViewCore

/// Runs a graph without curses: a virtual clock jumps from timer to timer as fast as the
/// machine allows (any other clock, real time, is simply waited for), and every state
/// change prints one line (and, with `output`, every output line of a command); then the
/// summary.
package enum HeadlessRunner {
    /// Runs until `root` settles. `start` executes the root (after observing begins);
    /// `interrupted` is polled between timers (a signal: the root is cancelled with source
    /// `signal`). Lines go to `print`, with times counted from `origin` (the log's `t = 0`, so
    /// the replay of the run's log prints the same lines; nil: 0 on a virtual clock, else when
    /// this starts). `finished` gets the final tree. Returns how the run ended by its steps
    /// (`RunVerdict`: a failed step fails it whatever the root's kind; a root that never
    /// settled because nothing was left to run is cancelled with source `quit`).
    package static func run(
        graph: Graph, clock: any GraphClock, root: NodeID,
        interrupted: () -> Bool = { false },
        output: Bool = false, origin: Double? = nil,
        history: RunHistory? = nil,
        baseline: Baseline? = nil,
        plain: PlainPacing? = nil,
        warnings: SharedWarningRules? = nil,
        finished: (TreeModel) -> Void = { _ in },
        print: (String) -> Void,
        start: () -> Void
    ) -> RootOutcome {
        // On real time the graph's own threads send output (commands): a flood waits in
        // their pipes, not here.
        let inbox = EventInbox(root: root, holdsBackOutput: !(clock is VirtualClock))
        let (snapshot, observation) = graph.snapshotAndObserve { inbox.receive($0) }
        defer { observation.cancel() }
        var printer = HeadlessPrinter(snapshot: snapshot)
        printer.showOutput = output
        printer.history = history
        printer.baseline = baseline
        let virtual = clock as? VirtualClock
        // Real time is shown from the start, as in the log.
        let origin = origin ?? (virtual == nil ? clock.now : 0)
        func flush() {
            for var e in inbox.drain() {
                e.time -= origin
                if let line = printer.absorb(e) { print(line) }
            }
        }
        start()
        flush()
        var cancelled = false
        let realStart = plain?.realNow() ?? 0
        var nextRunning = plain?.runningEvery ?? .infinity
        // Plain mode: a `running:` line each time the graph clock passes a multiple of
        // `runningEvery`; on a virtual clock, timers wait for their real time.
        func pace() -> Bool {
            guard let plain else { return true }
            let now = clock.now - origin
            if virtual == nil {
                if now >= nextRunning {
                    if let line = PlainPacing.runningLine(printer.tree, time: now) { print(line) }
                    nextRunning = (now / plain.runningEvery).rounded(.down) * plain.runningEvery + plain.runningEvery
                }
                return true
            }
            guard let due = virtual!.nextDue else { return true }
            let step = min(due, nextRunning)
            let realDue = realStart + step / plain.speed
            let left = realDue - plain.realNow()
            if left > 0 {
                plain.wait(min(left, 0.1))
                return false // look again: a signal may have come
            }
            if due > nextRunning {
                virtual!.advance(by: nextRunning - virtual!.now)
                if let line = PlainPacing.runningLine(printer.tree, time: nextRunning) { print(line) }
                nextRunning += plain.runningEvery
                return false
            }
            return true
        }
        // The `slow` and `silent` rules, once a second of graph time and when the root settled.
        var nextCheck = 0.0
        func checkWarnings() {
            guard let warnings else { return }
            let now = clock.now - origin
            guard now >= nextCheck || inbox.rootSettled else { return }
            nextCheck = now + 1
            let changes = warnings.check(printer.tree, now: now)
            for c in changes { graph.warn(NodeID(c.id), rule: c.rule, text: c.text) }
            if !changes.isEmpty { flush() }
        }
        while !inbox.rootSettled {
            if !cancelled && interrupted() {
                cancelled = true
                graph.cancel(root, source: ViewerCancelSource.signal)
            } else if virtual == nil {
                sleepBriefly() // the graph runs on its own threads
                _ = pace()
            } else if !pace() {
                // waited, or printed a running line
            } else if !virtual!.runNext() {
                if cancelled { break } // nothing left that could settle it
                cancelled = true
                graph.cancel(root, source: ViewerCancelSource.quit)
            }
            flush()
            checkWarnings()
        }
        flush()
        checkWarnings()
        finished(printer.tree)
        for line in printer.summary(root: root) { print(line) }
        return outcome(printer.tree, root)
    }

    /// How a scenario run ended by its steps (`RunVerdict`; cancelled when unsettled).
    package static func outcome(_ tree: TreeModel, _ root: NodeID) -> RootOutcome {
        RunVerdict(tree: tree, root: root.rawValue).outcome ?? .cancelled
    }
}

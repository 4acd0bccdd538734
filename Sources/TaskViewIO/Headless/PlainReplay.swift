import TaskGraph
import TaskViewCore

/// `taskview replay --plain` (and `TERM=dumb`): the headless lines of a log at the pace of
/// the recording, as a person watching the dashboard's replay would see them happen: each
/// line when the replay clock (recorded seconds, `pacing.speed` of them per real second)
/// reaches its event, a `[T] running: a, b, c (+4)` line every `pacing.runningEvery`
/// recorded seconds while something executes, then the summary. Without the `running:`
/// lines the output is `ReplaySource.headlessLines` line for line.
package enum PlainReplay {
    /// How a plain replay ended.
    package enum Ending: Sendable, Equatable {
        /// Every event was played.
        case played
        /// `interrupted` said so (Ctrl-C, SIGTERM, SIGHUP) at this recorded time.
        case interrupted(at: Double)
    }

    /// Plays `log` and prints its lines, then the summary (of what was played when
    /// interrupted). `interrupted` is asked before every line and at least every 0.1 s of
    /// waiting; each line goes to `print` whole.
    package static func run(
        _ log: ReplayLog, pacing: PlainPacing, interrupted: () -> Bool, print: (String) -> Void
    ) -> Ending {
        var printer = HeadlessPrinter(snapshot: log.initialSnapshot)
        let events = log.events
        let realStart = pacing.realNow()
        var nextRunning = pacing.runningEvery > 0 ? pacing.runningEvery : .infinity
        var ending = Ending.played
        var i = 0
        while i < events.count {
            if interrupted() {
                ending = .interrupted(at: replayTime(realStart, pacing))
                break
            }
            let due = events.time(at: i)
            let step = min(due, nextRunning)
            let left = realStart + step / pacing.speed - pacing.realNow()
            if left > 0 {
                pacing.wait(min(left, 0.1))
                continue
            }
            if due > nextRunning {
                // Events at the very moment come first, as in a live plain run.
                if let line = PlainPacing.runningLine(printer.tree, time: nextRunning) { print(line) }
                nextRunning += pacing.runningEvery
                continue
            }
            if let line = printer.absorb(events[i]) { print(line) }
            i += 1
        }
        for line in printer.summary(root: log.finalSnapshot.roots.last) { print(line) }
        return ending
    }

    /// The recorded time the replay clock shows now.
    private static func replayTime(_ realStart: Double, _ pacing: PlainPacing) -> Double {
        max(0, (pacing.realNow() - realStart) * pacing.speed)
    }
}

import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Headless `taskview attach`: one state line per node already executing when a program's
/// first snapshot arrives, then the lines `run --headless` prints as things change (the
/// program's own ids and clock), prefixed by `NAME: ` when several programs are attached;
/// at the end each program's status and the counts.
package final class AttachHeadless {
    private struct Known {
        var names: [Int: String] = [:]
        var cancelSource: [Int: String] = [:]
        var seenSnapshot = false
    }

    private let session: AttachSession
    private var known: [Int: Known] = [:]
    private var tree = TreeModel()
    private let emit: (String) -> Void
    /// Plain mode (`--plain`, `TERM=dumb`): every this many seconds after attaching, each
    /// connected program's `[T] running: a, b, c (+4)` line (T on its own clock); nil: none.
    package let runningEvery: Double?

    /// `print` receives each line.
    package init(session: AttachSession, runningEvery: Double? = nil, print: @escaping (String) -> Void) {
        self.session = session
        self.runningEvery = runningEvery.flatMap { $0 > 0 ? $0 : nil }
        self.emit = print
        session.onItem = { [unowned self] p, item in self.absorb(p, item) }
    }

    /// Runs until every program has ended (returns their outcome's status: 0 when every root
    /// succeeded, 1 when one failed or a program was killed, 130 when one was cancelled) or
    /// `interrupted()` (returns 130). `now` is the viewer's clock in seconds (default: the
    /// monotonic clock); `wait` (default: until a connection posts something) pauses.
    package func run(
        interrupted: () -> Bool, now: (() -> Double)? = nil, wait: ((Double) -> Void)? = nil
    ) -> Int32 {
        let now = now ?? AttachDiscovery.monotonic
        let t0 = now()
        var nextRunning = runningEvery ?? .infinity
        while true {
            let elapsed = now() - t0
            _ = session.pump(tree: &tree, now: elapsed)
            if let every = runningEvery, elapsed >= nextRunning {
                runningLines(at: elapsed)
                nextRunning = ((elapsed / every).rounded(.down) + 1) * every
            }
            fflush(nil) // lines go out as they happen, also into a pipe
            if interrupted() {
                finish()
                return 130
            }
            if session.allEnded && session.watchDirectory == nil {
                finish()
                return session.exitStatus
            }
            let pause = min(0.5, max(0.01, nextRunning - elapsed))
            if let wait { wait(pause) } else { session.wait(seconds: pause) }
        }
    }

    /// One `running:` line per program still attached that has something executing.
    private func runningLines(at elapsed: Double) {
        for (p, program) in session.programs.programs.enumerated() where !program.status.isOver {
            let t = elapsed + (program.clockOffset ?? 0)
            if let line = PlainPacing.runningLine(tree, under: program.row, time: t) { emit(label(p) + line) }
        }
    }

    private func finish() {
        session.stop()
        _ = session.pump(tree: &tree, now: 0)
        for line in session.statusLines { emit(line) }
        // The program rows are not counted (`TreeModel.isCounted`): the programs' nodes only.
        emit(HeadlessSummary.countsLine(tree.counts))
    }

    private func label(_ p: Int) -> String {
        session.programCount > 1 ? Sanitizer.clean(session.programs.programs[p].name) + ": " : ""
    }

    private func line(_ p: Int, _ t: Double, _ id: Int, _ rest: String) {
        let name = known[p]?.names[id] ?? "?"
        emit(label(p) + "[" + Format.seconds3(t) + "] #\(id) " + Sanitizer.clean(name) + ": " + rest)
    }

    /// Updates the names in place (`known[p]` copied out and back copied its whole table at
    /// every event) and prints the state lines.
    private func absorb(_ p: Int, _ item: StreamItem) {
        switch item {
        case .snapshot(let nodes, _, let time):
            var names: [Int: String] = [:]
            names.reserveCapacity(nodes.count)
            for n in nodes { names[Int(n.id)] = n.name }
            let first = !(known[p]?.seenSnapshot ?? false)
            known[p, default: Known()].names = names
            known[p, default: Known()].cancelSource = known[p, default: Known()].cancelSource.filter {
                names[$0.key] != nil
            }
            known[p, default: Known()].seenSnapshot = true
            if first {
                for n in nodes where n.state == .executing { line(p, time, Int(n.id), "executing") }
            }
        case .events(let events):
            if known[p] == nil { known[p] = Known() }
            for e in events {
                switch e.change {
                case .added(let id, _, let name, _, _, _):
                    known[p]!.names[id.rawValue] = name
                case .renamed(let id, let name):
                    if known[p]!.names[id.rawValue] != nil { known[p]!.names[id.rawValue] = name }
                case .cancelRequested(let id, let source):
                    known[p]!.cancelSource[id.rawValue] = source
                case .dropped(let ids):
                    for id in ids {
                        known[p]!.names[id.rawValue] = nil
                        known[p]!.cancelSource[id.rawValue] = nil
                    }
                case .stateChanged(let id, let state, let failed, let message):
                    let i = id.rawValue
                    switch state {
                    case .notExecuted: break
                    case .executing: line(p, e.time, i, "executing")
                    case .completed:
                        line(p, e.time, i, failed ? "failed: " + Sanitizer.clean(message ?? "error") : "succeeded")
                    case .cancelled:
                        let source = known[p]!.cancelSource[i] ?? "unknown"
                        line(p, e.time, i, "cancelled (" + Sanitizer.clean(source) + ")")
                    }
                default:
                    break
                }
            }
        default:
            break
        }
    }
}

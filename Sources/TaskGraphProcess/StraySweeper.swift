import Synchronization
import TaskGraph

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends the stray processes of command runs that ended: processes that left the run's
/// process group but carry its mark (daemons that `setsid`). One sweeper serves every run:
/// a pass over `/proc` (a few ms in a container) looks for the marks of all runs waiting at
/// once. A pass runs when a run has waited `interval` seconds, when `batch` runs wait, or as
/// soon as someone waits for every command (`hurry()`); every `busyInterval` seconds while
/// strays are still ending. A thousand short commands cost a dozen passes, not a thousand. A pass reads
/// the environment only of processes that started after the earliest waiting run did
/// (older ones cannot carry such a mark).
final class StraySweeper: Sendable {
    /// The one sweeper.
    static let shared = StraySweeper()

    private struct Waiting: Sendable {
        let word: String
        let since: UInt64
        var signals: SweepSignals
        let done: CheckedContinuation<Void, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        /// When the oldest waiting run came (0: none waits).
        var oldest = 0.0
        var sweeping = false
        var hurried = false
        /// Runs that still had strays after the last pass.
        var busy = false
    }

    private let state = Mutex(State())

    /// Seconds a run waits at most for a pass, while no stray is ending, and while one is.
    static let interval = 0.1
    static let busyInterval = 0.05
    /// Runs that make a pass at once.
    static let batch = 64
    /// How often the sweeper looks whether a pass is due.
    static let tick = 0.005

    init() {}

    /// Returns once no process carrying run `word`'s mark is left (SIGTERM to each, SIGKILL
    /// after `grace` seconds; or 2 s after that when something cannot be ended). `since`: when
    /// the run's first process started (`ProcessTable.ticksNow()` before it was spawned).
    func sweep(_ word: String, since: UInt64, grace: Double) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let start = state.withLock { s in
                if s.waiting.isEmpty { s.oldest = monotonicSeconds() }
                s.waiting.append(Waiting(word: word, since: since, signals: SweepSignals(grace: grace), done: done))
                defer { s.sweeping = true }
                return !s.sweeping
            }
            if start { Task.detached { await self.loop() } }
        }
    }

    /// Someone waits for every command to end: the next pass comes at once.
    func hurry() {
        state.withLock { $0.hurried = true }
    }

    /// Passes until no run waits.
    private func loop() async {
        while true {
            try? await Task.sleep(nanoseconds: UInt64(Self.tick * 1e9))
            let batch: [Waiting]? = state.withLock { s in
                if s.waiting.isEmpty {
                    s.sweeping = false
                    s.hurried = false
                    return []
                }
                let wait =
                    s.busy ? Self.busyInterval : s.hurried || s.waiting.count >= Self.batch ? 0 : Self.interval
                let due = monotonicSeconds() - s.oldest >= wait
                guard due else { return nil }
                defer {
                    s.waiting.removeAll(keepingCapacity: true)
                    s.oldest = monotonicSeconds()
                }
                return s.waiting
            }
            guard let batch else { continue }
            if batch.isEmpty { return }
            let found = Self.pass(batch)
            var left: [Waiting] = []
            var finished: [CheckedContinuation<Void, Never>] = []
            for (i, var w) in batch.enumerated() {
                if w.signals.step(found[i]) { finished.append(w.done) } else { left.append(w) }
            }
            state.withLock { s in
                s.busy = !left.isEmpty
                if !left.isEmpty {
                    if s.waiting.isEmpty { s.oldest = monotonicSeconds() }
                    s.waiting.append(contentsOf: left)
                }
            }
            for done in finished { done.resume() }
        }
    }

    /// One look at every process: those (not zombies, not this one) marked with each run's
    /// word, in `batch` order.
    private static func pass(_ batch: [Waiting]) -> [[ProcessTable.Entry]] {
        var index: [String: Int] = [:]
        for (i, w) in batch.enumerated() { index[w.word] = i }
        let since = batch.lazy.map(\.since).min() ?? 0
        let me = getpid()
        var reader = ProcessTable.EnvironmentReader()
        var found = [[ProcessTable.Entry]](repeating: [], count: batch.count)
        ProcessTable.scan { e in
            guard !e.zombie, e.pid != me, e.mayHaveStarted(since: since) else { return }
            reader.forEachMarkerWord(e.pid) { word in
                if let i = index[String(word)] { found[i].append(e) }
            }
        }
        return found
    }
}

import Foundation
import Synchronization
import TaskGraph
import Testing

/// A graph cancel of a scope cancels its running child scopes at once, with source
/// `parent` (the AsyncScopes article, "Cancel from the graph"), also while the cores are
/// busy: a child body that sees the Swift cancel first and returns (or throws
/// `CancellationError`) must not end its node `completed` (or cancelled by `task`).
/// CI runs suites named *StressTests under ThreadSanitizer.
@Suite struct ScopeCancelStressTests {
    /// Threads that keep every core busy until `stop()`.
    final class BusyThreads: Sendable {
        private let stopped = Atomic<Bool>(false)
        private let running = Atomic<Int>(0)

        init(count: Int) {
            for _ in 0..<count {
                Thread { [self] in
                    running.add(1, ordering: .relaxed)
                    var x: UInt64 = 1
                    while !stopped.load(ordering: .relaxed) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                    withExtendedLifetime(x) {}
                    running.subtract(1, ordering: .relaxed)
                }.start()
            }
        }

        func stop() async {
            stopped.store(true, ordering: .relaxed)
            _ = await eventuallyAsync { running.load(ordering: .relaxed) == 0 }
        }
    }

    @Test func aGraphCancelOfAScopeCancelsItsRunningChildScopesWithSourceParent() async {
        let busy = BusyThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount))
        var wrong: [String] = []
        let iterations = 300
        for i in 0..<iterations {
            let (g, _) = virtualGraph()
            let log = EventLog(g)
            let outerID = Locked<NodeID?>(nil)
            let inner = Locked<[NodeID]>([])
            let started = Counter()
            let work = Task {
                await withGraphTask("outer", graph: g) { outer in
                    outerID.withLock { $0 = outer.id }
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            // Returns once it sees the Swift cancel.
                            await withGraphTask("returns") { s in
                                inner.withLock { $0.append(s.id) }
                                started.bump()
                                while !Task.isCancelled { await Task.yield() }
                            }
                        }
                        group.addTask {
                            // Throws `CancellationError` once it sees the Swift cancel.
                            try? await withGraphTask("throws") { s in
                                inner.withLock { $0.append(s.id) }
                                started.bump()
                                while true {
                                    try Task.checkCancellation()
                                    await Task.yield()
                                }
                            }
                        }
                    }
                }
            }
            #expect(await eventuallyAsync { started.value == 2 })
            g.cancel(outerID.get!)
            await work.value
            for id in inner.get {
                let state = g.snapshot()[id]?.state
                let sources = log.cancelSources(id)
                if state != .cancelled || sources != [CancelSource.parent] {
                    wrong.append("iteration \(i): \(state.map { "\($0)" } ?? "nil") \(sources)")
                }
            }
        }
        await busy.stop()
        #expect(wrong.isEmpty, "\(wrong.count) of \(2 * iterations) child scopes: \(wrong.prefix(5))")
    }
}

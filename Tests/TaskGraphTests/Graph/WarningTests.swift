import Testing

@testable import TaskGraph

/// The graph's `ignoresCancel` rule (docs/taskview.md, "Warnings"): a scope whose body has not
/// returned, or a `GraphTask.async` body still running, 1 s after the graph cancelled it is
/// warned about (a `warn` event, in snapshots of logs and for viewers), and the warning ends
/// when the body returns. On a virtual clock: the timer fires when the test moves it.
@Suite struct WarningTests {
    static let text = "ignores cancel: still running 1s after it was cancelled"

    static func warns(_ log: EventLog) -> [GraphChange] {
        log.changes.filter { if case .warn = $0 { true } else { false } }
    }

    @Test func aScopeThatNeverChecksCancellationIsWarnedAfterOneSecondUntilItReturns() async {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let release = Locked(false)
        let id = Locked<NodeID?>(nil)
        async let done: Void = withGraphTask("stuck", graph: g) { scope in
            id.withLock { $0 = scope.id }
            while !release.get { await Task.yield() } // never looks at Task.isCancelled
        }
        #expect(await eventuallyAsync { id.get != nil })
        let node = id.get!
        g.cancel(node)
        clock.advance(by: 0.5)
        #expect(Self.warns(log).isEmpty)
        clock.advance(by: 0.5)
        #expect(Self.warns(log) == [.warn(id: node, rule: WarningRule.ignoresCancel, text: Self.text)])
        #expect(g.cancelWatch.current[node.rawValue] == [WarningRule.ignoresCancel: Self.text])
        release.withLock { $0 = true }
        await done
        #expect(
            Self.warns(log) == [
                .warn(id: node, rule: WarningRule.ignoresCancel, text: Self.text),
                .warn(id: node, rule: WarningRule.ignoresCancel, text: nil),
            ])
        #expect(g.cancelWatch.current.isEmpty)
    }

    @Test func aScopeThatStopsWhenCancelledIsNotWarned() async {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let id = Locked<NodeID?>(nil)
        async let done: Void = withGraphTask("polite", graph: g) { scope in
            id.withLock { $0 = scope.id }
            while !Task.isCancelled { await Task.yield() }
        }
        #expect(await eventuallyAsync { id.get != nil })
        g.cancel(id.get!)
        await done
        clock.advance(by: 2)
        #expect(Self.warns(log).isEmpty)
    }

    @Test func anAsyncBodyStillRunningAfterCancelIsWarnedUntilItReturns() async {
        let (g, clock) = virtualGraph()
        let log = EventLog(g)
        let release = Locked(false)
        let started = Locked(false)
        let task = GraphTask<Int, Never>.async(name: "body", graph: g) { _ in
            started.withLock { $0 = true }
            while !release.get { await Task.yield() }
            return 1
        }
        task.execute()
        #expect(await eventuallyAsync { started.get })
        task.cancel()
        clock.advance(by: 0.999)
        #expect(Self.warns(log).isEmpty)
        clock.advance(by: 0.001)
        #expect(Self.warns(log) == [.warn(id: task.id, rule: WarningRule.ignoresCancel, text: Self.text)])
        release.withLock { $0 = true }
        #expect(await eventuallyAsync { Self.warns(log).count == 2 })
        #expect(Self.warns(log).last == .warn(id: task.id, rule: WarningRule.ignoresCancel, text: nil))
    }

    @Test func warnRecordsEachChangeOnceAndIgnoresUnknownNodes() {
        let (g, _) = virtualGraph()
        let log = EventLog(g)
        let task = timed(1, after: 5, name: "t", graph: g)
        task.execute()
        g.warn(task.id, rule: WarningRule.slow, text: "slow: 3.4× its usual 12s")
        g.warn(task.id, rule: WarningRule.slow, text: "slow: 3.4× its usual 12s") // the same: nothing
        g.warn(task.id, rule: WarningRule.silent, text: nil) // no such warning: nothing
        g.warn(NodeID(999), rule: WarningRule.slow, text: "nobody")
        g.warn(task.id, rule: WarningRule.slow, text: nil)
        #expect(
            Self.warns(log) == [
                .warn(id: task.id, rule: WarningRule.slow, text: "slow: 3.4× its usual 12s"),
                .warn(id: task.id, rule: WarningRule.slow, text: nil),
            ])
    }
}

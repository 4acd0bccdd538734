import Testing

@testable import TaskGraph
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// The dashboard takes a tick's worth of a busy program's events at a time, so a key is
/// answered after one bounded batch; what is left wakes the next tick at once.
@Suite struct AttachInboxTests {
    static func events(_ n: Int) -> AttachInbox.Message {
        let e = GraphEvent(
            sequence: 1, time: 0,
            change: .progress(id: NodeID(0), progress: TaskProgress(0.5, info: nil)))
        return .item(program: 0, .events(Array(repeating: e, count: n)))
    }

    static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    @Test func aDrainTakesAtMostItsLimitOldestFirstAndLeavesTheRestAwake() throws {
        let inbox = AttachInbox()
        inbox.post([Self.events(3000), Self.events(1000), Self.events(2000)])
        let fd = try #require(inbox.wakeDescriptor)
        #expect(inbox.drain(limit: 4096).map(\.cost) == [3000, 1000])
        #expect(Self.readable(fd)) // the rest wakes the next tick
        #expect(inbox.drain(limit: 4096).map(\.cost) == [2000])
        #expect(!Self.readable(fd))
        #expect(inbox.drain(limit: 4096).isEmpty)
    }

    @Test func aBatchLargerThanTheLimitIsTakenAlone() {
        let inbox = AttachInbox()
        inbox.post([Self.events(10_000), Self.events(1)])
        #expect(inbox.drain(limit: 4096).map(\.cost) == [10_000])
        #expect(inbox.drain(limit: 4096).map(\.cost) == [1])
    }

    @Test func aTakenMessageIsLetGoWhileOthersStillWait() {
        // A viewer that lags keeps a queue that never empties: what it took must not stay
        // behind in it (it held tens of MiB of events under a flood).
        let inbox = AttachInbox()
        inbox.post((0..<5).map { _ in Self.events(100) })
        #expect(inbox.drain(limit: 300).map(\.cost) == [100, 100, 100])
        #expect(inbox.messagesHeld == 2)
        inbox.post([Self.events(100)])
        #expect(inbox.drain(limit: 100).map(\.cost) == [100])
        #expect(inbox.messagesHeld == 2)
    }

    @Test func aPostThatFindsTheInboxFullReturnsOnceTheDashboardTakesSome() async {
        let inbox = AttachInbox()
        inbox.post([Self.events(AttachInbox.maxQueued)])
        let posted = Task.detached {
            inbox.post([Self.events(10)]) { false } // waits: more than maxQueued queued
            return true
        }
        var taken = 0
        while taken < AttachInbox.maxQueued + 10 {
            taken += inbox.drain(limit: 1 << 20).reduce(0) { $0 + $1.cost }
            await Task.yield()
        }
        #expect(await posted.value)
    }
}

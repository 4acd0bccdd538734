import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TaskGraph

/// The library's lock (an atomic word with a futex for waiting): mutual exclusion under
/// contention, a waiter that sleeps is woken, and the word is free again afterwards.
@Suite struct LockTests {
    /// A counter only ever touched with `lock` held.
    private final class Guarded: @unchecked Sendable { // `count` behind `lock`
        let lock = Lock()
        var count = 0
    }

    /// More threads than cores, each taking the lock 100,000 times: holders get preempted
    /// inside, so waiters spin, give up and sleep on the futex; not one increment is lost.
    @Test func contendedIncrementsAreAllKept() {
        let guarded = Guarded()
        let threads = 4
        let rounds = 100_000
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            Thread {
                for _ in 0..<rounds {
                    guarded.lock.lock()
                    guarded.count += 1
                    guarded.lock.unlock()
                }
                done.signal()
            }.start()
        }
        for _ in 0..<threads {
            // A broken wake-up leaves threads asleep for good: fail, do not hang.
            guard done.wait(timeout: .now() + 120) == .success else {
                Issue.record("a thread waiting for the lock was never woken")
                return
            }
        }
        #expect(guarded.lock.withLock { guarded.count } == threads * rounds)
        #expect(guarded.lock.raw.word.pointee.load(ordering: .relaxed) == 0, "the lock stays marked held")
    }

    /// A thread that finds the lock held sleeps until the holder unlocks, and then sees what
    /// the holder wrote before unlocking.
    @Test func aWaiterGetsTheLockOnlyAfterTheHolderUnlocks() {
        let guarded = Guarded()
        let waiting = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let seen = Mutex<Int?>(nil)
        guarded.lock.lock()
        Thread {
            waiting.signal()
            guarded.lock.lock()
            let value = guarded.count
            guarded.lock.unlock()
            seen.withLock { $0 = value }
            finished.signal()
        }.start()
        waiting.wait()
        // Long enough for the waiter to spin out and sleep on most machines; the assertion
        // holds either way.
        usleep(50_000)
        #expect(seen.withLock { $0 } == nil, "the waiter got in while the lock was held")
        guarded.count = 42
        guarded.lock.unlock()
        #expect(finished.wait(timeout: .now() + 30) == .success, "the waiter was never woken")
        #expect(seen.withLock { $0 } == 42)
        #expect(guarded.lock.raw.word.pointee.load(ordering: .relaxed) == 0)
    }
}

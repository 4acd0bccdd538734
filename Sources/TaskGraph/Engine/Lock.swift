internal import CTaskGraphRuntime
import Synchronization

/// A mutual-exclusion lock: one atomic word, taken and given back inline (a compare-exchange
/// and an exchange), with waiting done by the kernel only when threads contend (a futex on
/// Linux). `pthread_mutex_lock`/`unlock` cost a call and 40-odd instructions a pair more,
/// and W1 takes 6 locks a task, 13 with a recorder attached (callgrind). Being atomics, its
/// hand-offs are seen by ThreadSanitizer. `lock()`/`unlock()` are exposed so generic hot paths
/// need no closure. `package`: TaskGraphTracing uses it too.
@usableFromInline
package final class Lock: @unchecked Sendable {
    /// The lock's word, for hot paths that must not touch (retain) this object.
    @usableFromInline let raw: RawLock

    /// `padded`: the word gets a 64-byte cache line of its own, so that threads taking it
    /// do not slow down whoever uses the memory next to it (lock stripes).
    @usableFromInline package init(padded: Bool = false) {
        raw = RawLock(padded: padded)
    }

    deinit { raw.deallocate() }

    @inlinable @inline(__always) package func lock() { raw.lock() }
    @inlinable @inline(__always) package func unlock() { raw.unlock() }

    @inlinable @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        raw.lock()
        defer { raw.unlock() }
        return try body()
    }
}

/// A lock's word in memory of its own: 0 free, 1 held, 2 held and maybe waited for (the
/// futex mutex of Drepper's "Futexes Are Tricky"). A plain pointer, so a hot path holding an
/// unretained stripe locks it with no retain/release.
@usableFromInline @frozen
struct RawLock {
    @usableFromInline let base: UnsafeMutableRawPointer

    init(padded: Bool) {
        base = .allocate(
            byteCount: padded ? 64 : MemoryLayout<UInt32>.size,
            alignment: padded ? 64 : MemoryLayout<UInt32>.alignment)
        base.bindMemory(to: Atomic<UInt32>.self, capacity: 1).initialize(to: Atomic(0))
    }

    func deallocate() {
        _ = word.move()
        base.deallocate()
    }

    @inlinable @inline(__always)
    var word: UnsafeMutablePointer<Atomic<UInt32>> { base.assumingMemoryBound(to: Atomic<UInt32>.self) }

    @inlinable @inline(__always)
    func lock() {
        if _slowPath(!word.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged) {
            lockContended()
        }
    }

    @inlinable @inline(__always)
    func unlock() {
        if _slowPath(word.pointee.exchange(0, ordering: .releasing) == 2) { wakeOne() }
    }

    /// Spins a little (critical sections here are a few hundred instructions), then marks
    /// the lock waited for and sleeps until the holder's `unlock` wakes one waiter.
    @usableFromInline @inline(never)
    func lockContended() {
        for _ in 0..<100 {
            tg_cpu_relax()
            if word.pointee.load(ordering: .relaxed) == 0,
                word.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
            {
                return
            }
        }
        // Whoever takes the lock from here leaves it marked 2, so its unlock wakes the next.
        while word.pointee.exchange(2, ordering: .acquiring) != 0 {
            tg_futex_wait(base.assumingMemoryBound(to: UInt32.self), 2)
        }
    }

    @usableFromInline @inline(never)
    func wakeOne() {
        tg_futex_wake_one(base.assumingMemoryBound(to: UInt32.self))
    }
}

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

    /// Whether the calling thread holds this lock. Debug builds only: the lock records its
    /// owner in debug builds alone, and this is always false in release builds (use it in
    /// `assert` / `debugOnly`, as `assertHeld()` does).
    package var isHeldByCurrentThread: Bool { raw.isHeldByCurrentThread }

    /// Asserts (debug builds) that the calling thread holds this lock: the first line of a
    /// `…Locked` function. Nothing in release builds.
    @inlinable @inline(__always)
    package func assertHeld(file: StaticString = #file, line: UInt = #line) {
        raw.assertHeld(file: file, line: line)
    }
}

/// A lock's word in memory of its own: 0 free, 1 held, 2 held and maybe waited for (the
/// futex mutex of Drepper's "Futexes Are Tricky"). A plain pointer, so a hot path holding an
/// unretained stripe locks it with no retain/release.
///
/// Debug builds also record the owner: the word of the thread holding the lock, 8 bytes after
/// the lock's word (`ownerSlot`), for `isHeldByCurrentThread` and the `…Locked` functions'
/// assertions (swift-nio's `NIOLock` checks its owner in debug builds the same way). Release
/// builds allocate, take and give back the word alone, as before.
@usableFromInline @frozen
struct RawLock {
    @usableFromInline let base: UnsafeMutableRawPointer

    init(padded: Bool) {
        #if DEBUG
            base = .allocate(byteCount: padded ? 64 : 16, alignment: padded ? 64 : 8)
            (base + RawLock.ownerOffset).bindMemory(to: Atomic<UInt>.self, capacity: 1).initialize(to: Atomic(0))
        #else
            base = .allocate(
                byteCount: padded ? 64 : MemoryLayout<UInt32>.size,
                alignment: padded ? 64 : MemoryLayout<UInt32>.alignment)
        #endif
        base.bindMemory(to: Atomic<UInt32>.self, capacity: 1).initialize(to: Atomic(0))
    }

    func deallocate() {
        _ = word.move()
        #if DEBUG
            _ = ownerSlot.move()
        #endif
        base.deallocate()
    }

    #if DEBUG
        /// Where debug builds keep the owner's thread word (0: nobody).
        static var ownerOffset: Int { 8 }
        var ownerSlot: UnsafeMutablePointer<Atomic<UInt>> {
            (base + RawLock.ownerOffset).assumingMemoryBound(to: Atomic<UInt>.self)
        }

        /// After taking the lock (debug builds).
        @usableFromInline @inline(never)
        func recordOwner() {
            let me = UInt(tg_thread_id())
            assert(ownerSlot.pointee.load(ordering: .relaxed) != me, "lock taken again by the thread holding it")
            ownerSlot.pointee.store(me, ordering: .relaxed)
            tg_add_locks_held(1)
        }

        /// Before giving the lock back (debug builds).
        @usableFromInline @inline(never)
        func clearOwner() {
            assert(
                ownerSlot.pointee.load(ordering: .relaxed) == UInt(tg_thread_id()),
                "lock given back by a thread that does not hold it")
            ownerSlot.pointee.store(0, ordering: .relaxed)
            tg_add_locks_held(-1)
        }
    #endif

    /// Whether the calling thread holds the lock: debug builds only (always false in release).
    @usableFromInline
    var isHeldByCurrentThread: Bool {
        #if DEBUG
            return ownerSlot.pointee.load(ordering: .relaxed) == UInt(tg_thread_id())
        #else
            return false
        #endif
    }

    /// Asserts (debug builds) that the calling thread holds the lock.
    @inlinable @inline(__always)
    func assertHeld(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            if !isHeldByCurrentThread { lockNotHeld(file: file, line: line) }
        }
    }

    /// Asserts (debug builds) that the calling thread holds some lock: for `…Locked` functions
    /// that have no reference to theirs (a driver's owner's stripe).
    @inlinable @inline(__always)
    static func assertSomeHeld(file: StaticString = #file, line: UInt = #line) {
        debugOnly {
            if !someHeldByCurrentThread { RawLock.noLockHeld(file: file, line: line) }
        }
    }

    /// Whether the calling thread holds any lock (debug builds; always false in release).
    @usableFromInline
    static var someHeldByCurrentThread: Bool {
        #if DEBUG
            return tg_locks_held() > 0
        #else
            return false
        #endif
    }

    @usableFromInline @inline(never)
    static func noLockHeld(file: StaticString, line: UInt) {
        assertionFailure("a …Locked function called with no lock held", file: file, line: line)
    }

    @usableFromInline @inline(never)
    func lockNotHeld(file: StaticString, line: UInt) {
        assertionFailure("a …Locked function called without its lock held", file: file, line: line)
    }

    @inlinable @inline(__always)
    var word: UnsafeMutablePointer<Atomic<UInt32>> { base.assumingMemoryBound(to: Atomic<UInt32>.self) }

    @inlinable @inline(__always)
    func lock() {
        if _slowPath(!word.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged) {
            lockContended()
        }
        #if DEBUG
            recordOwner()
        #endif
    }

    @inlinable @inline(__always)
    func unlock() {
        #if DEBUG
            clearOwner()
        #endif
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

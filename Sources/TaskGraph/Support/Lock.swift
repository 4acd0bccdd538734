#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock backed by a pthread mutex: fast when uncontended, and
/// understood by ThreadSanitizer (which does not see `Synchronization.Mutex`'s futex
/// waits). `lock()`/`unlock()` are exposed so generic hot paths need no closure. `package`:
/// TaskGraphTracing uses it too.
@usableFromInline
package final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// `padded`: the mutex gets a 64-byte cache line of its own, so that threads taking it
    /// do not slow down whoever uses the memory next to it (lock stripes).
    @usableFromInline package init(padded: Bool = false) {
        mutex = padded
            ? UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64).bindMemory(to: pthread_mutex_t.self, capacity: 1)
            : .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    @inlinable @inline(__always) package func lock() { pthread_mutex_lock(mutex) }
    @inlinable @inline(__always) package func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

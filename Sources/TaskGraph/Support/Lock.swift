#if TSAN_LOCKS
#if canImport(Glibc)
import Glibc
#endif

/// A mutual-exclusion lock. Built with `-DTSAN_LOCKS` it is a pthread mutex, which
/// ThreadSanitizer understands (it does not see `Synchronization.Mutex`'s futex waits).
@usableFromInline
final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @usableFromInline init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable func lock() { pthread_mutex_lock(mutex) }
    @inlinable func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
#else
import Synchronization

/// A mutual-exclusion lock (a futex-based `Mutex`). Built with `-DTSAN_LOCKS` it is a
/// pthread mutex instead, which ThreadSanitizer understands.
@usableFromInline
final class Lock: @unchecked Sendable {
    @usableFromInline let mutex = Mutex<Void>(())

    @usableFromInline init() {}

    @inlinable
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try mutex.withLock { _ in try body() }
    }
}
#endif

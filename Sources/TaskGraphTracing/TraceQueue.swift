import Dispatch
import TaskGraph
import Tracing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One observed event and, for a node that starts executing, the `ServiceContext.current`
/// of the thread that started it (a root's span joins that trace).
struct TraceEntry {
    var event: GraphEvent
    var context: ServiceContext?
}

/// Events on their way from the graph's observer (the program's threads, under the graph's
/// lock) to the tracing thread: appending is a copy under a lock held for nanoseconds; the
/// tracing thread swaps the whole batch out (two arrays reused, no allocation in steady
/// state). At most `maxBacklog` entries wait; a producer beyond that waits for the tracing
/// thread, but never longer than `stallSeconds` without progress: then tracing gives up
/// (later events are dropped) rather than hold the program.
final class TraceQueue: @unchecked Sendable {   // state behind `lock`
    static let maxBacklog = 1 << 18
    static let stallSeconds = 1.0

    private let lock = Lock()
    private var pending: [TraceEntry] = []
    private var taken: UInt64 = 0
    private var waiters = 0
    private(set) var closed = false
    private var failed = false
    private let work = DispatchSemaphore(value: 0)
    private let room = DispatchSemaphore(value: 0)

    init() { pending.reserveCapacity(1024) }

    @inline(__always)
    func append(_ entry: TraceEntry) {
        lock.lock()
        if _fastPath(pending.count < TraceQueue.maxBacklog && !closed && !failed) {
            pending.append(entry)
            let wake = pending.count == 4096
            lock.unlock()
            if wake { work.signal() }
            return
        }
        appendSlow(entry)
    }

    /// Called with `lock` held; unlocks.
    @inline(never)
    private func appendSlow(_ entry: TraceEntry) {
        var seen = taken
        var start = monotonicSeconds()
        while pending.count >= TraceQueue.maxBacklog && !closed && !failed {
            let now = monotonicSeconds()
            if taken != seen { seen = taken; start = now }
            if now - start >= TraceQueue.stallSeconds { failed = true; break }
            waiters += 1
            lock.unlock()
            work.signal()
            _ = room.wait(timeout: .now() + .milliseconds(10))
            lock.lock()
            waiters -= 1
        }
        if !closed && !failed { pending.append(entry) }
        lock.unlock()
    }

    /// Swaps the waiting entries into `batch` (which must be empty; its capacity is reused).
    func take(into batch: inout [TraceEntry]) {
        let wake = lock.withLock { () -> Int in
            swap(&pending, &batch)
            taken &+= UInt64(batch.count)
            return waiters
        }
        for _ in 0..<wake { room.signal() }
    }

    /// Later entries are dropped.
    func close() {
        lock.withLock { closed = true }
        work.signal()
        room.signal()
    }

    var isClosed: Bool { lock.withLock { closed } }

    func waitForWork(milliseconds: Int) {
        _ = work.wait(timeout: .now() + .milliseconds(milliseconds))
    }

    private func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

/// Starts a detached thread that calls `step` until it returns false.
func startTracingThread(_ step: @escaping @Sendable () -> Bool) {
    final class Box: @unchecked Sendable {   // immutable
        let step: @Sendable () -> Bool
        init(_ step: @escaping @Sendable () -> Bool) { self.step = step }
    }
    let context = Unmanaged.passRetained(Box(step)).toOpaque()
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let r = pthread_create(&thread, nil, { arg in
        guard let arg else { return nil }
        let box = Unmanaged<Box>.fromOpaque(arg).takeRetainedValue()
        while box.step() {}
        return nil
    }, context)
    guard r == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        return
    }
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    if let thread { pthread_detach(thread) }
    #endif
}

internal import CTaskGraphRuntime
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Work between tasks (start a subtask, tell a parent a child settled, cancel across a
/// link) goes through the trampoline of the current thread: it runs inline up to a small
/// depth, then queues on the same thread, and the outermost call drains the queue before
/// it returns. So a chain of 100,000 links uses constant stack, and nothing ever hops to
/// another thread.
@usableFromInline
final class Trampoline {
    @usableFromInline
    enum Op: UInt8 {
        case start, childSettled, childProgress, childCancelled, cancelByParent
        /// Runs the closure number `arg` of `callbacks` (see `deferCall`).
        case callback
    }

    struct Job {
        let task: AnyGraphTask
        let op: Op
        let arg: Int
    }

    static let maxInlineDepth = 48

    // Each thread writes its trampoline several times per task: the padding keeps those
    // writes off cache lines another thread's objects may share.
    private let leadingPadding = CacheLinePadding()
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var queue: [Job] = []
    @exclusivity(unchecked) private var head = 0
    /// Closures queued by `deferCall`, run in queue order with the jobs.
    @exclusivity(unchecked) private var callbacks: [(() -> Void)?] = []
    /// Tasks whose settled handlers this thread is calling right now (innermost last): a
    /// handler added to one of them meanwhile is queued, not called nested (A+ 2.2.6).
    @exclusivity(unchecked) @usableFromInline var sending: [ObjectIdentifier] = []
    /// The lock stripe this thread's new tasks join (`Stripe`), dealt round-robin.
    @usableFromInline let stripe: Int
    private let trailingPadding = CacheLinePadding()

    private static let stripesDealt = Atomic<Int>(0)

    private init() {
        stripe = Trampoline.stripesDealt.wrappingAdd(1, ordering: .relaxed).oldValue & (Graph.stripeCount - 1)
    }

    /// Only for its destructor: it releases the thread's trampoline when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            tg_set_trampoline(nil)
            Unmanaged<Trampoline>.fromOpaque(raw).release()
        }
        return key
    }()

    @usableFromInline static var current: Trampoline {
        if let raw = tg_get_trampoline() {
            return Unmanaged<Trampoline>.fromOpaque(raw).takeUnretainedValue()
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> Trampoline {
        let t = Trampoline()
        let raw = Unmanaged.passRetained(t).toOpaque()
        pthread_setspecific(key, raw)
        tg_set_trampoline(raw)
        return t
    }

    /// The calling thread's trampoline, unretained (the thread's key holds it until the
    /// thread ends): the hot paths use it without a retain/release pair.
    @usableFromInline static var unretained: Unmanaged<Trampoline> {
        if let raw = tg_get_trampoline() { return Unmanaged.fromOpaque(raw) }
        return .passUnretained(makeCurrent())
    }

    /// Runs `task.perform(op, arg)` now, or after the calls already on this thread's stack.
    /// Returns false when it queued the call.
    @usableFromInline @discardableResult
    static func run(_ task: AnyGraphTask, _ op: Op, _ arg: Int = 0) -> Bool {
        unretained._withUnsafeGuaranteedRef { t in
            if t.depth >= maxInlineDepth {
                t.queue.append(Job(task: task, op: op, arg: arg))
                return false
            }
            t.depth += 1
            task.perform(op, arg)
            t.depth -= 1
            if t.depth == 0 { t.drain() }
            return true
        }
    }

    /// Calls `body` after the work already on this thread's stack and queue, before the
    /// outermost library call returns (at once when there is none). `task` is only the
    /// queue's anchor: it stays alive until the call.
    @usableFromInline static func deferCall(_ task: AnyGraphTask, _ body: @escaping () -> Void) {
        let t = current
        if t.depth == 0 {
            enter(body)
        } else {
            t.callbacks.append(body)
            t.queue.append(Job(task: task, op: .callback, arg: t.callbacks.count - 1))
        }
    }

    /// Runs the closure `deferCall` queued as number `index`.
    func runCallback(_ index: Int) {
        let body = callbacks[index]
        callbacks[index] = nil
        body?()
    }

    /// Whether this thread is calling the settled handlers of `task` right now.
    @usableFromInline func isSending(_ task: AnyGraphTask) -> Bool {
        sending.contains(ObjectIdentifier(task))
    }

    /// Runs `task.perform(op, arg)` after the work already on this thread's stack and queue.
    /// Used for progress passed up to a parent: by then the child may have settled, and the
    /// parent reads the child's latest fraction once instead of reacting to every step.
    static func later(_ task: AnyGraphTask, _ op: Op, _ arg: Int = 0) {
        let t = current
        if t.depth == 0 {
            run(task, op, arg)
        } else {
            t.queue.append(Job(task: task, op: op, arg: arg))
        }
    }

    /// Brackets a public entry point so work queued inside it finishes before it returns.
    @usableFromInline
    static func enter(_ body: () -> Void) {
        unretained._withUnsafeGuaranteedRef { t in
            t.depth += 1
            body()
            t.depth -= 1
            if t.depth == 0 { t.drain() }
        }
    }

    private func drain() {
        while head < queue.count {
            let job = queue[head]
            head += 1
            depth = 1
            job.task.perform(job.op, job.arg)
            depth = 0
        }
        queue.removeAll(keepingCapacity: queue.capacity <= 1024)
        head = 0
        if !callbacks.isEmpty { callbacks.removeAll() }
    }
}

/// Releases objects iteratively: a deinit that would release a long chain of tasks hands
/// them here instead of releasing them recursively.
final class ReleasePool {
    // One pool per thread, never shared, and no access to these overlaps another (a release
    // runs after the pop that ended it): the dynamic exclusivity checks cost ~2 % of W2.
    @exclusivity(unchecked) private var pending: [AnyObject] = []
    @exclusivity(unchecked) private var draining = false

    /// Only for its destructor: it releases the thread's pool when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            tg_set_release_pool(nil)
            Unmanaged<ReleasePool>.fromOpaque(raw).release()
        }
        return key
    }()

    static var current: ReleasePool {
        if let raw = tg_get_release_pool() {
            return Unmanaged<ReleasePool>.fromOpaque(raw).takeUnretainedValue()
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> ReleasePool {
        let p = ReleasePool()
        let raw = Unmanaged.passRetained(p).toOpaque()
        pthread_setspecific(key, raw)
        tg_set_release_pool(raw)
        return p
    }

    /// Moves the driver out of `slot` into the pool, so that the pool's reference is the last
    /// one. Call `drain()` afterwards.
    @inline(never)
    static func hold(_ slot: inout CompositeDriver?) {
        guard let d = slot else { return }
        slot = nil
        current.pending.append(d)
    }

    /// Moves every task of `tasks` into the pool and empties it.
    @inline(never)
    static func hold(_ tasks: inout [AnyGraphTask]) {
        guard !tasks.isEmpty else { return }
        let pool = current
        for t in tasks { pool.pending.append(t) }
        tasks = []
    }

    /// Releases what the pool holds, one at a time, unless a drain further up this thread's
    /// stack will do it.
    static func drain() {
        current.drainIfIdle()
    }

    private func drainIfIdle() {
        guard !draining else { return }
        draining = true
        // One object at a time: the pop ends before the release runs, and a release may
        // append more (a deinit handing over its own references).
        while let next = pending.popLast() {
            withExtendedLifetime(next) {}
        }
        draining = false
    }
}

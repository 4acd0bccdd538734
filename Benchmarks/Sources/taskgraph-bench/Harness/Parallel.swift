import Glibc

/// Carries one thread's work to it.
private final class ParallelBody: @unchecked Sendable { // handed over once, then joined
    let index: Int
    let barrier: UnsafeMutablePointer<pthread_barrier_t>
    let body: @Sendable (Int) -> Void
    init(index: Int, barrier: UnsafeMutablePointer<pthread_barrier_t>, body: @escaping @Sendable (Int) -> Void) {
        self.index = index
        self.barrier = barrier
        self.body = body
    }
}

/// Runs `body(i)` on `threads` new threads at once (they start together at a barrier) and
/// returns the wall seconds from the start until the last one finished.
func timeOnThreads(_ threads: Int, _ body: @escaping @Sendable (_ thread: Int) -> Void) -> Double {
    let barrier = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)
    defer { barrier.deallocate() }
    pthread_barrier_init(barrier, nil, UInt32(threads + 1))
    defer { pthread_barrier_destroy(barrier) }
    var handles: [pthread_t] = []
    for i in 0..<threads {
        let box = Unmanaged.passRetained(ParallelBody(index: i, barrier: barrier, body: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<ParallelBody>.fromOpaque(raw!).takeRetainedValue()
                pthread_barrier_wait(box.barrier)
                box.body(box.index)
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        handles.append(thread)
    }
    pthread_barrier_wait(barrier)
    let start = now()
    for h in handles { pthread_join(h, nil) }
    return now() - start
}

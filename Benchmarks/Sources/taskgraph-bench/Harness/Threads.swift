import Dispatch
import Glibc

/// Carries a closure to another thread that the caller joins before going on.
private final class ThreadBody: @unchecked Sendable { // handed over once, then joined
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Runs `body` on a new thread with a stack of `stackBytes`, waits for it and returns its
/// result (joined, so handing the result over needs no Sendable).
///
/// The timed workloads run on a 1 GiB stack so that subjects that recurse once per link
/// (OpenCombine, the minimal future) can still be timed on 100,000-link chains; how deep
/// each subject gets on the *default* stack is measured separately, in child processes.
func runOnThread<T>(stackBytes: Int, _ body: @escaping @Sendable () -> T) -> T {
    let result = ResultBox<T>()
    runOnThread(stackBytes: stackBytes) { result.value = body() }
    return result.value!
}

private func runOnThread(stackBytes: Int, _ body: @escaping @Sendable () -> Void) {
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    pthread_attr_setstacksize(&attr, stackBytes)
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, &attr,
        { raw in
            let box = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    pthread_join(thread, nil)
}

/// Holds an async result for a thread that blocks on it.
private final class ResultBox<T>: @unchecked Sendable { // written once before the signal
    var value: T?
}

/// Runs `body` on the Swift Concurrency pool and blocks this (non-pool) thread until it
/// returns. Swift subjects take their own timestamps inside `body`, so the hop is not timed.
func blockingAwait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

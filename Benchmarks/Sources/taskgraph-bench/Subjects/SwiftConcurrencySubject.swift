import Synchronization

/// Swift Concurrency: `Task`, `withTaskGroup`, `withCheckedContinuation`. Each workload runs
/// on the cooperative pool and times itself there.
enum SwiftConcurrencySubject {
    /// W1: `Task { i }` then `await task.value` (the awaiter is the one handler).
    static func w1(n: Int) -> Double {
        blockingAwait {
            var sum = 0
            let start = now()
            for i in 0..<n {
                sum &+= await Task { i }.value
            }
            let t = now() - start
            check(sum == n * (n - 1) / 2, "Swift W1 sum")
            return t / Double(n)
        }
    }

    /// W2: a chain of `n` tasks, each awaiting the previous one and adding 1.
    static func w2(n: Int) -> Double {
        blockingAwait {
            let start = now()
            let value = await chain(depth: n)
            let t = now() - start
            check(value == n, "Swift W2 chain value")
            return t / Double(n)
        }
    }

    static func chain(depth: Int) async -> Int {
        var task = Task<Int, Never> { 0 }
        for _ in 0..<depth {
            let previous = task
            task = Task { await previous.value + 1 }
        }
        return await task.value
    }

    /// W3: a task group of `n` child tasks, results gathered by the parent.
    static func w3(n: Int) -> Double {
        blockingAwait {
            let start = now()
            let count = await withTaskGroup(of: Int.self) { group in
                for i in 0..<n { group.addTask { i } }
                var count = 0
                for await _ in group { count += 1 }
                return count
            }
            let t = now() - start
            check(count == n, "Swift W3 count")
            return t / Double(n)
        }
    }

    /// W4: heap bytes per task suspended in `withCheckedContinuation` (the continuation is
    /// kept, as a pending task's resolver would be; the code after the await is the handler).
    static func w4(n: Int) -> Double {
        blockingAwait {
            let store = ContinuationStore(capacity: n)
            var tasks: [Task<Void, Never>] = []
            tasks.reserveCapacity(n)
            let before = mallocedBytes()
            for _ in 0..<n {
                tasks.append(
                    Task {
                        let v = await withCheckedContinuation { store.add($0) }
                        check(v == 1, "Swift W4 resume value")
                    })
            }
            while store.count < n { try? await Task.sleep(for: .milliseconds(1)) }
            let after = mallocedBytes()
            store.resumeAll()
            for t in tasks { await t.value }
            return Double(after - before) / Double(n)
        }
    }

    /// W5: a root task with a group of `width` children, each with a group of `width`
    /// leaves sleeping for an hour; seconds for `root.cancel()` (which marks the whole tree
    /// and runs the sleeps' cancellation handlers before it returns).
    static func w5(width: Int) -> Double {
        blockingAwait {
            let started = Counter()
            let root = Task {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<width {
                        group.addTask {
                            await withTaskGroup(of: Void.self) { inner in
                                for _ in 0..<width {
                                    inner.addTask {
                                        started.increment()
                                        try? await Task.sleep(for: .seconds(3600))
                                    }
                                }
                            }
                        }
                    }
                }
            }
            while started.value < width * width { try? await Task.sleep(for: .milliseconds(1)) }
            try? await Task.sleep(for: .milliseconds(20)) // let the last leaves reach their sleep
            let start = now()
            root.cancel()
            let t = now() - start
            await root.value
            return t
        }
    }
}

/// Keeps W4's continuations until the measurement is taken.
final class ContinuationStore: Sendable {
    private let items: Mutex<[CheckedContinuation<Int, Never>]>

    init(capacity: Int) {
        var items: [CheckedContinuation<Int, Never>] = []
        items.reserveCapacity(capacity)
        self.items = Mutex(items)
    }

    func add(_ c: CheckedContinuation<Int, Never>) { items.withLock { $0.append(c) } }

    var count: Int { items.withLock { $0.count } }

    func resumeAll() {
        let all = items.withLock { items -> [CheckedContinuation<Int, Never>] in
            defer { items = [] }
            return items
        }
        for c in all { c.resume(returning: 1) }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)
    func increment() { atomic.add(1, ordering: .relaxed) }
    var value: Int { atomic.load(ordering: .relaxed) }
}

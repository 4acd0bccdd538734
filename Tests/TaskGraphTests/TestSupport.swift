import Foundation
import Testing

@testable import TaskGraph

struct TestError: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "test error \(code)" }
}

/// A pthread-backed lock (NSLock), so ThreadSanitizer sees the synchronization
/// (it does not see `Synchronization.Mutex` on Linux).
final class Locked<T>: @unchecked Sendable { // `value` guarded by `lock`
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func withLock<R>(_ body: (inout T) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
    var get: T { withLock { $0 } }
}

/// A thread-safe list of what happened, in order.
final class Recorder<T: Sendable>: Sendable {
    private let items = Locked<[T]>([])
    func add(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.get }
    var count: Int { items.withLock { $0.count } }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let n = Locked(0)
    func bump() { n.withLock { $0 += 1 } }
    var value: Int { n.get }
}

/// A fresh graph on a virtual clock.
func virtualGraph() -> (Graph, VirtualClock) {
    let clock = VirtualClock()
    return (Graph(clock: clock), clock)
}

/// Every event of `graph` from now on, in order.
final class EventLog: Sendable {
    private let items = Locked<[GraphEvent]>([])
    let observation: any GraphObservation

    init(_ graph: Graph) {
        let items = self.items
        observation = graph.observe { e in items.withLock { $0.append(e) } }
    }

    var events: [GraphEvent] { items.get }
    var changes: [GraphChange] { events.map(\.change) }

    /// The cancel sources recorded for `id`, in order.
    func cancelSources(_ id: NodeID) -> [String] {
        changes.compactMap { if case .cancelRequested(let i, let s) = $0, i == id { return s } else { return nil } }
    }

    /// The states `id` moved through, in order.
    func states(_ id: NodeID) -> [TaskState] {
        changes.compactMap { if case .stateChanged(let i, let s, _, _) = $0, i == id { return s } else { return nil } }
    }

    /// The progress fractions recorded for `id`, in order.
    func fractions(_ id: NodeID) -> [Double] {
        changes.compactMap { if case .progress(let i, let p) = $0, i == id { return p.fraction } else { return nil } }
    }

    /// The state a replica rebuilt from these events shows.
    var replica: GraphReplica {
        var r = GraphReplica()
        for e in events { r.apply(e) }
        return r
    }
}

/// A leaf that completes when the virtual clock reaches `after` seconds from execute.
func timed<S: Sendable>(
    _ value: S, after seconds: Double, name: String? = nil, graph: Graph,
    fail: Bool = false
) -> GraphTask<S, TestError> {
    GraphTask<S, TestError>(name: name, graph: graph) { task, succeed, failure, _ in
        let timer = graph.clock.schedule(after: seconds) {
            if fail { failure(TestError()) } else { succeed(value) }
        }
        task.onCancel { timer.cancel() }
    }
}

/// A leaf that never settles by itself.
func forever(name: String? = nil, graph: Graph) -> GraphTask<Int, TestError> {
    GraphTask<Int, TestError>(name: name, graph: graph) { _, _ in }
}

/// A leaf that reports `steps` on the virtual clock, one per second, then succeeds with `value`.
func stepped(_ steps: [Double], value: Int = 0, name: String? = nil, graph: Graph) -> GraphTask<Int, TestError> {
    GraphTask<Int, TestError>(name: name, graph: graph) { task, succeed, _, progress in
        for (i, f) in steps.enumerated() {
            let t = graph.clock.schedule(after: Double(i + 1)) { progress(TaskProgress(f)) }
            task.onCancel { t.cancel() }
        }
        let t = graph.clock.schedule(after: Double(steps.count + 1)) { succeed(value) }
        task.onCancel { t.cancel() }
    }
}

/// Runs `body` on a thread with exactly an 8 MiB stack (a pthread made here, so the size is
/// certain; Swift Testing's worker threads may have smaller stacks) and waits for it.
func onBigStack(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ b: @escaping @Sendable () -> Void) { body = b }
    }
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    #expect(pthread_attr_setstacksize(&attr, 8 << 20) == 0)
    var thread = pthread_t()
    let arg = Unmanaged.passRetained(Box(body)).toOpaque()
    let rc = pthread_create(
        &thread, &attr,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, arg)
    #expect(rc == 0)
    if rc == 0 { pthread_join(thread, nil) }
}

/// The success value of a completed task (nil if not completed or failed).
func val<S, F>(_ t: GraphTask<S, F>) -> S? {
    guard case .success(let v)? = t.outcome else { return nil }
    return v
}

/// Polls `condition` every few milliseconds until it holds, sleeping without blocking a
/// cooperative thread (a sync test that sleep-polls holds one of only 2 on CI, so there is
/// no blocking twin of this). Gives up only after `timeout` seconds *and* `minPolls` polls:
/// when other tests hold the cooperative threads, a sleeping poll and the Swift task it waits
/// for may both wait far longer than they run, and wall time alone would fail a correct test.
func eventuallyAsync(timeout: Double = 30, minPolls: Int = 1_000, _ condition: () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(timeout)
    var polls = 0
    while Date() < end || polls < minPolls {
        if condition() { return true }
        polls += 1
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return condition()
}

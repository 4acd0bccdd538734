import Synchronization
@testable import TaskGraph

struct TestError: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "test error \(code)" }
}

/// A thread-safe list of what happened, in order.
final class Recorder<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func add(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// A fresh graph on a virtual clock.
func virtualGraph() -> (Graph, VirtualClock) {
    let clock = VirtualClock()
    return (Graph(clock: clock), clock)
}

/// A leaf that completes when the virtual clock reaches `after` seconds from execute.
func timed<S: Sendable>(_ value: S, after seconds: Double, name: String? = nil, graph: Graph,
                        fail: Bool = false) -> GraphTask<S, TestError> {
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

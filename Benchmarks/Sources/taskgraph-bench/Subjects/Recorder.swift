#if !NO_GRAPHTASK
import Glibc
import Synchronization
import TaskGraph

/// The "GraphTask + recorder" subjects' observer.
///
/// TODO(issue 5): switch to `graph.record(to:)` (the replay-log writer) once it is in main;
/// until then this attaches a no-op `graph.observe { _ in }`, as the issue allows.
struct Recorder {
    let observation: any GraphObservation
    let path: String?

    /// Where this process's recordings go; each is deleted when its run ends.
    private static let counter = Atomic<Int>(0)

    static func attach(to graph: Graph) -> Recorder {
        let observation = graph.observe { _ in }
        return Recorder(observation: observation, path: nil)
    }

    static func temporaryPath() -> String {
        let k = counter.add(1, ordering: .relaxed).newValue
        return "/tmp/taskgraph-bench-\(getpid())-\(k).tglog"
    }

    func stop() {
        observation.cancel()
        if let path { unlink(path) }
    }

    /// What the recorded rows attach: shown in the table's subject name.
    static let label = "GraphTask + observer (no-op)"
}
#endif

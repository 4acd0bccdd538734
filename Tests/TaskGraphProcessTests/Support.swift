import Synchronization
import TaskGraph
import TestSupport

@testable import TaskGraphProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Collects a graph's events.
final class Events: Sendable {
    private final class Store: Sendable {
        let list = Mutex<[GraphEvent]>([])
    }
    private let store = Store()
    private let observation: any GraphObservation

    init(_ graph: Graph) {
        let store = self.store
        observation = graph.observe { e in store.list.withLock { $0.append(e) } }
    }

    deinit { observation.cancel() }

    var all: [GraphEvent] { store.list.withLock { $0 } }

    func output(_ id: NodeID) -> [(OutputStreamName, String)] {
        all.compactMap {
            if case .output(let i, let s, let t) = $0.change, i == id { return (s, t) } else { return nil }
        }
    }

    func progress(_ id: NodeID) -> [TaskProgress] {
        all.compactMap { if case .progress(let i, let p) = $0.change, i == id { return p } else { return nil } }
    }
}

/// A fresh temporary directory (TestSupport's `TemporaryDirectory`), removed by `removeDirectory`.
func temporaryDirectory() -> String {
    TemporaryDirectory("taskgraph-process").path
}

func removeDirectory(_ dir: String) {
    _ = system("rm -rf '\(dir)'")
}

/// A small file's text, nil if it cannot be read.
func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buf = [UInt8](repeating: 0, count: 1024)
    let n = read(fd, &buf, buf.count)
    guard n >= 0 else { return nil }
    return String(decoding: buf[..<n], as: UTF8.self)
}

/// The pid written in a file, once it is there (polling up to `timeout` seconds and at
/// least `minPolls` times: the command starts from a Swift task, and a cooperative pool
/// starved by a parallel test run may start it, and wake this poll, far later than usual).
func pid(in path: String, timeout: Double = 30, minPolls: Int = 300) async -> pid_t? {
    let deadline = monotonicSeconds() + timeout
    var polls = 0
    repeat {
        if let text = readText(path), text.hasSuffix("\n"), let v = Int32(text.dropLast()), v > 0 { return v }
        polls += 1
        try? await Task.sleep(for: .milliseconds(20))
    } while monotonicSeconds() < deadline || polls < minPolls
    return nil
}

/// Whether a process runs (a zombie, waiting for its parent to collect it, does not).
func isRunning(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    guard let s = readText("/proc/\(pid)/stat") else { return false }
    guard let close = s.lastIndex(of: ")") else { return true }
    let state = s[s.index(close, offsetBy: 2)...].first
    return state != "Z" && state != "X"
}

/// Polls until `pid` no longer runs, up to `timeout` seconds and at least `minPolls` times
/// (the kill is sent from a Swift task too).
func waitGone(_ pid: pid_t, timeout: Double = 30, minPolls: Int = 300) async -> Bool {
    let deadline = monotonicSeconds() + timeout
    var polls = 0
    while isRunning(pid) {
        if monotonicSeconds() > deadline && polls >= minPolls { return false }
        polls += 1
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}

/// The task's outcome (executing it), nil when it was cancelled.
func outcome(_ t: GraphTask<CommandOutput, CommandError>) async -> Result<CommandOutput, CommandError>? {
    do { return .success(try await t.value) } catch let e as CommandError { return .failure(e) } catch { return nil }
}

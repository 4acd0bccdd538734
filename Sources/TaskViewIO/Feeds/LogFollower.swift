import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// `replay --follow`: reads a log that is still being written, like `tail -f`, through the
/// log reader's parser (complete lines only; a partly flushed line waits for its newline),
/// until its `end`.
package final class LogFollower {
    package let path: String
    private let fd: Int32
    private var stream: LogStream
    private var seeded = false
    /// Whether the log's `end` was read.
    package private(set) var ended = false
    /// The log is a scenario run's (its header names one): its exit status is the steps'
    /// verdict (newest attempts, `allowFailure`), as `run` and `replay` give it.
    package private(set) var judgesSteps = false

    /// Opens `path`; throws `LogLoadError` naming it.
    package init(path: String) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LogLoadError(path: path, line: nil, message: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw LogLoadError(path: path, line: nil, message: "not a regular file")
        }
        stream = LogStream(name: path, live: false)
    }

    deinit { close(fd) }

    /// Reads what was appended since the last call and applies it to `tree` (seeded by
    /// the log's first snapshot; later snapshots change nothing, the events already did).
    /// Returns whether anything new was read, and the state lines `run --headless` printed
    /// for it. Throws `LogLoadError` naming the line of a bad line.
    package func poll(into tree: inout TreeModel) throws -> (changed: Bool, lines: [String]) {
        var lines: [String] = []
        var changed = false
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while !ended {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw LogLoadError(path: path, line: nil, message: String(cString: strerror(errno))) }
            if n == 0 { break }
            let items: [StreamItem]
            do {
                items = try buf.withUnsafeBytes { try stream.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            } catch let e as StreamError {
                throw LogLoadError(path: path, line: e.line, message: e.message)
            }
            for item in items {
                changed = true
                absorb(item, into: &tree, lines: &lines)
            }
        }
        return (changed, lines)
    }

    private func absorb(_ item: StreamItem, into tree: inout TreeModel, lines: inout [String]) {
        switch item {
        case .snapshot(let nodes, _, _) where !seeded:
            var model = LogModel()
            for n in nodes { model.add(n) }
            tree = TreeModel(snapshot: model.snapshot(sequence: 0))
            seeded = true
        case .events(let events):
            seeded = true // a log that starts late: events build the tree from nothing
            // No line reads subtree counts: they are rolled up once for the batch.
            tree.withDeferredRollUp { tree in
                for e in events {
                    tree.absorb(e)
                    if let line = HeadlessPrinter.line(for: e, in: tree) { lines.append(line) }
                }
            }
        case .end:
            ended = true
        case .header(let h):
            judgesSteps = h.scenario != nil
        default:
            break // later snapshots
        }
    }

    /// 0 succeeded, 1 failed, 130 cancelled, 3 when the root never settled; a scenario run's
    /// log (`judgesSteps`) or one with restarts exits as `replay` of it would.
    package static func exitStatus(_ tree: TreeModel, judgesSteps: Bool = false) -> Int32 {
        if judgesSteps || !tree.attempts.isEmpty {
            var model = DashboardModel(title: "")
            model.judgesSteps = judgesSteps
            model.tree = tree
            model.updateOutcome()
            if let o = model.outcome { return o.exitStatus }
        }
        guard let r = tree.roots.last else { return 3 }
        switch tree[r].display {
        case .succeeded: return 0
        case .failed: return 1
        case .cancelled: return 130
        default: return 3
        }
    }
}

/// The dashboard on a followed log: new lines appear as they are flushed; FOLLOW (the
/// selection on the newest executing node) is on at the start. Read-only.
package final class FollowSource: DashboardSource {
    package let follower: LogFollower
    package let title: String
    /// A bad line stops the following; the message is shown.
    package private(set) var failure: LogLoadError?

    package init(follower: LogFollower, title: String) {
        self.follower = follower
        self.title = title
    }

    package func start(model: inout DashboardModel) {
        model.title = title
        model.replay = ReplayState() // playing
        model.view.follow = true
        _ = tick(realElapsed: 0, model: &model)
    }

    package func tick(realElapsed: Double, model: inout DashboardModel) -> Bool {
        guard failure == nil, !follower.ended else { return false }
        do {
            let (changed, _) = try follower.poll(into: &model.tree)
            guard changed else { return false }
            model.clockNow = model.tree.time
            model.replay?.position = model.tree.time
            model.replay?.duration = model.tree.time
            model.updateOutcome()
            if follower.ended { model.replay?.playing = false }
            Reducer.applyFollow(&model)
            return true
        } catch let e as LogLoadError {
            failure = e
            model.view.message = Sanitizer.clean(e.description)
            return true
        } catch {
            return false
        }
    }

    package func secondsUntilNextTick(realElapsed: Double, model: DashboardModel) -> Double? {
        follower.ended || failure != nil ? nil : 0.1 // the writer flushes at least every 100 ms
    }

    package func perform(_ effect: DashboardEffect, key: Key, model: inout DashboardModel) {}

    package func finish(source: String, model: inout DashboardModel) {}
}

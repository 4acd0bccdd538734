import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// The viewer side of `taskview attach` without a terminal: the connections, the merged
/// tree and the id mapping. The dashboard (`AttachSource`) and the headless printer both
/// drive one. All calls on one thread (the main thread); connection threads only post to
/// the inbox.
public final class AttachSession {
    let inbox = AttachInbox()
    var programs = AttachTree()
    var connections: [AttachConnection] = []
    private var paths: Set<String> = []
    /// `--all`: the directory rescanned for programs that start later.
    package let watchDirectory: String?
    private var lastScan = -Double.infinity
    /// Called for every stream item, in order (headless output), with the program index.
    var onItem: ((Int, StreamItem) -> Void)?
    /// Folds each batch's superseded progress.
    private var fold = ProgressFold()

    /// A session with no program yet; with `watchDirectory` (`--all`), programs that start
    /// serving there later are attached too.
    public init(watchDirectory: String? = nil) {
        self.watchDirectory = watchDirectory
    }

    deinit { stop() }

    /// Connects to a program's socket and starts reading it; its row appears at once.
    /// Throws (naming the path) when nobody serves there.
    public func attach(path: String) throws(AttachError) {
        switch UnixSocket.connect(path: path) {
        case .failure(let f):
            throw AttachError(
                message: f.isStale ? "\(path): no program serves there (stale socket)" : f.description,
                notAnswering: f.isNotAnswering)
        case .success(let fd):
            paths.insert(path)
            let p = programs.addProgram(name: path, pid: nil)
            let c = AttachConnection(fd: fd, program: p, path: path)
            connections.append(c)
            c.start(inbox: inbox)
            _ = c.requestUsage() // the program's row shows its own CPU and memory (`u`)
        }
    }

    /// Records the session's tree (local ids, viewer clock) to a replay log.
    public func record(to recorder: GraphRecorder) { programs.recorder = recorder }

    /// Sends every event of the tree to `sink` too, as it happens (`--otlp`).
    package func stream(to sink: @escaping @Sendable (GraphEvent) -> Void) { programs.stream = sink }

    /// Number of programs attached so far.
    package var programCount: Int { programs.programs.count }

    /// Whether every attached program has ended (exited, killed or disconnected).
    package var allEnded: Bool { programs.allOver }

    /// The programs' own outcome once every one has ended, as `run` gives a root's: failed
    /// when a root failed or a program ended without `end` (killed), else cancelled when a
    /// root was cancelled, else succeeded. Nil while a program is still attached.
    package var outcome: RootOutcome? { programs.outcome }

    /// Which program ended how, for the header: `NAME (pid N) cancelled, ...`.
    package var endings: String {
        programs.programs.map { $0.label + " " + ($0.status.outcome?.word ?? $0.status.word) }
            .joined(separator: ", ")
    }

    /// The exit status of the session: the programs' outcome (0, 1, 130) once every one has
    /// ended, 130 when the viewer stopped before that (interrupted).
    package var exitStatus: Int32 { outcome?.exitStatus ?? 130 }

    /// `NAME (pid N): STATUS` for every program.
    package var statusLines: [String] {
        programs.programs.map { $0.label + ": " + $0.status.word }
    }

    /// Absorbs what the connections posted, the oldest first, up to about `limit` events
    /// (what is left wakes the next call at once); returns whether anything changed and the
    /// program error lines received (`NAME (pid N): MESSAGE`, sanitized).
    package func pump(
        tree: inout TreeModel, now: Double, limit: Int = .max
    ) -> (changed: Bool, errors: [String]) {
        var changed = rescan(now: now)
        var errors: [String] = []
        var messages = inbox.drain(limit: limit)
        // Progress a later event of the same batch replaces is never absorbed nor recorded.
        fold.reset()
        for k in messages.indices.reversed() {
            switch messages[k] {
            case .item(let p, let item): messages[k] = .item(program: p, fold.fold(item, program: p))
            case .closed(let p, _): fold.barrier(program: p)
            }
        }
        // One roll-up of subtree counts for the batch: a deep program's events cost O(1)
        // each, not a walk over their ancestors (DeferredRollUp).
        tree.withDeferredRollUp { tree in
            for m in messages {
                changed = true
                switch m {
                case .item(let p, let item):
                    onItem?(p, item)
                    programs.apply(item, program: p, tree: &tree, now: now)
                    if case .error(let message) = item {
                        errors.append(programs.programs[p].label + ": " + Sanitizer.clean(String(message.prefix(500))))
                    }
                case .closed(let p, let error):
                    programs.closed(
                        program: p, error: error.map { Sanitizer.clean(String($0.prefix(300))) },
                        tree: &tree, now: now)
                    onClosed?(p)
                }
            }
        }
        programs.refreshRows(tree: &tree, now: now)
        return (changed, errors)
    }

    /// Called when a program's connection ended (headless output).
    var onClosed: ((Int) -> Void)?

    /// Waits (headless) until a connection posts something, or at most `seconds`.
    public func wait(seconds: Double) { inbox.wait(seconds: seconds) }

    /// Readable while a connection has posted something `pump` has not taken.
    package var wakeDescriptor: Int32? { inbox.wakeDescriptor }

    /// Sends a cancel for the local node `id`: a program row cancels its unsettled roots.
    /// Returns the message the dashboard shows.
    package func cancel(local id: Int, name: String, tree: TreeModel) -> String {
        guard let (p, remote) = programs.target(of: id), p < connections.count else {
            return "Nothing to cancel"
        }
        let label = programs.programs[p].label
        guard !programs.programs[p].status.isOver else { return "\(label) has ended: nothing to cancel" }
        let ids = remote.map { [$0] } ?? programs.liveRoots(of: p, in: tree)
        for r in ids where !connections[p].sendCancel(remote: r) {
            return "Could not send the cancel to \(label): the connection is gone"
        }
        return "Cancel of \(name) sent to \(label)"
    }

    /// `--all`: connects to sockets that appeared in the watched directory (every second).
    @discardableResult
    func rescan(now: Double) -> Bool {
        guard let dir = watchDirectory, now - lastScan >= 1 else { return false }
        lastScan = now
        // The directory as checked at the start, still: never use one that broke the rules.
        guard AttachDiscovery.refusal(directory: dir) == nil else { return false }
        var changed = false
        for path in AttachDiscovery.sockets(in: dir) where !paths.contains(path) {
            paths.insert(path) // tried once; a stale socket is not retried
            do {
                try attach(path: path)
                changed = true
            } catch {
                // A program not answering yet (stopped, its queue full) is tried again.
                if error.notAnswering { paths.remove(path) }
            }
        }
        return changed
    }

    /// Seconds until the next rescan (nil without `--all`).
    func secondsUntilRescan(now: Double) -> Double? {
        watchDirectory == nil ? nil : max(0, lastScan + 1 - now)
    }

    /// Closes every connection and joins their threads.
    public func stop() {
        for c in connections { c.stop() }
    }
}

/// A program that cannot be attached (the message names it).
public struct AttachError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the program.
    public let message: String
    /// The program did not answer (stopped, or its queue of connections full): worth
    /// trying again later.
    package var notAnswering = false
    /// `message`.
    public var description: String { message }
}

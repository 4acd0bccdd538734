import Synchronization
import TaskGraph

/// What is known about one command node: for a detail pane, and for waiting at exit until
/// every process is gone.
public struct CommandInfo: Sendable, Equatable {
    /// The command as a person reads it (the shell string, or the argv).
    public var commandLine: String
    /// The working directory (nil: the caller's).
    public var workingDirectory: String?
    /// The process id while it runs (the process group has the same id).
    public var pid: Int32?
    /// The process id it ran as, kept after it ended (nil: it never started).
    public var startedPID: Int32?
    /// How it ended: `exit status 0`, `exit status 2`, `killed by SIGTERM`, `cannot run: ...`;
    /// nil while running.
    public var exit: String?

    /// A command's details.
    public init(commandLine: String, workingDirectory: String? = nil, pid: Int32? = nil, exit: String? = nil) {
        self.commandLine = commandLine
        self.workingDirectory = workingDirectory
        self.pid = pid
        self.exit = exit
    }
}

/// Every command started through `TaskGraphProcess` in this process: their details by node,
/// and how many still have processes that are not reaped. A program that quits after
/// cancelling its commands calls `waitUntilAllReaped(timeout:)` so no process outlives it.
public final class CommandRegistry: Sendable {
    /// The one registry.
    public static let shared = CommandRegistry()

    private struct Key: Hashable {
        let graph: ObjectIdentifier
        let node: Int
    }

    private struct State {
        var infos: [Key: CommandInfo] = [:]
        /// Keys of finished commands, oldest first, to bound `infos`.
        var finished: [Key] = []
        var finishedHead = 0
        var live = 0
    }

    /// Finished commands whose details are kept.
    static let keptFinished = 10_000

    private let state = Mutex(State())

    init() {}

    /// The details of a command node of `graph`, if it ran a command.
    public func info(graph: Graph, node: NodeID) -> CommandInfo? {
        let key = Key(graph: ObjectIdentifier(graph), node: node.rawValue)
        return state.withLock { $0.infos[key] }
    }

    /// Commands whose processes are not all gone yet.
    public var liveCount: Int { state.withLock { $0.live } }

    /// Blocks until every command's processes are reaped (cancelled commands get SIGTERM,
    /// then SIGKILL after their grace), or `timeout` seconds pass. True when none is left.
    @discardableResult
    public func waitUntilAllReaped(timeout: Double) -> Bool {
        let deadline = monotonicSeconds() + timeout
        while liveCount > 0 {
            if monotonicSeconds() >= deadline { return false }
            StraySweeper.shared.hurry()
            sleepSeconds(0.01)
        }
        return true
    }

    func started(graph: Graph, node: NodeID, info: CommandInfo) {
        let key = Key(graph: ObjectIdentifier(graph), node: node.rawValue)
        state.withLock {
            $0.infos[key] = info
            $0.live += 1
        }
    }

    func update(graph: Graph, node: NodeID, _ body: @Sendable (inout CommandInfo) -> Void) {
        let key = Key(graph: ObjectIdentifier(graph), node: node.rawValue)
        state.withLock { s in
            if var i = s.infos[key] {
                body(&i)
                s.infos[key] = i
            }
        }
    }

    /// The command's processes are all gone.
    func ended(graph: Graph, node: NodeID) {
        let key = Key(graph: ObjectIdentifier(graph), node: node.rawValue)
        state.withLock { s in
            s.live -= 1
            s.finished.append(key)
            if s.finished.count - s.finishedHead > CommandRegistry.keptFinished {
                s.infos[s.finished[s.finishedHead]] = nil
                s.finishedHead += 1
                if s.finishedHead > 1024 {
                    s.finished.removeFirst(s.finishedHead)
                    s.finishedHead = 0
                }
            }
        }
    }
}

/// A scenario (docs/taskview.md): a tree of simulated work that taskview builds with
/// the real TaskGraph API. `repeat` is already expanded.
public struct Scenario: Sendable {
    /// The scenario's name (demo name or file name without extension).
    public var name: String
    /// The root's `description` (shown by `demo --list`).
    public var description: String?
    /// The absolute path of the scenario file (`demo:NAME` for a shipped demo): recorded in
    /// the log's header, it finds the earlier runs of the same file (`RunHistory`).
    public var file: String?
    public var root: ScenarioNode

    /// A scenario with `command` nodes runs real processes, so it runs on real time.
    public var runsCommands: Bool { root.hasCommands }
}

/// One node of a scenario.
public struct ScenarioNode: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case work, sequential, concurrent, allSettled, then, recover, retry, timeout, command
    }

    /// What a `command` node runs.
    public enum Command: Sendable, Equatable {
        /// A string run with `/bin/sh -c`.
        case shell(String)
        /// argv, no shell.
        case argv([String])
    }

    public var kind: Kind
    public var name: String
    public var weight: Double?
    /// `id`: names the node for `needs` (unique in the file; letters, digits, `-`, `_`, `.`).
    public var id: String?
    /// `needs`: the ids of the nodes that must succeed before this one starts.
    public var needs: [String] = []
    /// Where `id` and each of `needs` stand in the file (for messages).
    var idPosition: JSONPosition?
    var needsPositions: [JSONPosition] = []
    public var children: [ScenarioNode] = []
    // work
    public var duration: Double = 1
    public var steps: Int = 10
    public var phases: [String] = []
    public var fail = false
    public var failAt: Double?
    public var failProbability: Double?
    public var message: String?
    // retry / timeout
    public var attempts: Int = 3
    public var seconds: Double = 0
    // command
    public var run: Command?
    /// The working directory, resolved against the scenario file's directory.
    public var cwd: String?
    public var env: [String: String] = [:]
    /// The progress regex (validated).
    public var progress: String?
    /// Seconds between SIGTERM and SIGKILL when cancelled.
    public var grace: Double?

    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    /// Nodes in the tree (the scenario's own, not the adapters the builder adds).
    public var count: Int { 1 + children.reduce(0) { $0 + $1.count } }

    /// Gives every `command` node without a `cwd` in this subtree the directory `path`.
    mutating func defaultCommandDirectory(_ path: String) {
        if kind == .command && cwd == nil { cwd = path }
        for i in children.indices { children[i].defaultCommandDirectory(path) }
    }

    /// Whether this node or a descendant runs a real command.
    public var hasCommands: Bool { kind == .command || children.contains { $0.hasCommands } }
}

/// A scenario that cannot be used: `FILE:LINE:COLUMN: message` (the message names the
/// node's JSON path where one is to blame).
public struct ScenarioError: Error, CustomStringConvertible, Sendable, Equatable {
    public var file: String
    public var position: JSONPosition?
    public var message: String

    public var description: String {
        if let position { return "\(file):\(position.line):\(position.column): \(message)" }
        return "\(file): \(message)"
    }
}

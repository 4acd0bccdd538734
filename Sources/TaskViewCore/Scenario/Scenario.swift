/// A scenario (docs/taskview.md): a tree of simulated work that taskview builds with
/// the real TaskGraph API. `repeat` is already expanded.
package struct Scenario: Sendable {
    /// The scenario's name (demo name or file name without extension).
    package var name: String
    /// The root's `description` (shown by `demo --list`).
    package var description: String?
    /// The absolute path of the scenario file (`demo:NAME` for a shipped demo): recorded in
    /// the log's header, it names the run history of the same file (`HistoryFile`).
    package var file: String?
    package var root: ScenarioNode

    /// A scenario with `command` nodes runs real processes, so it runs on real time.
    package var runsCommands: Bool { root.hasCommands }
}

/// One node of a scenario.
package struct ScenarioNode: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case work, sequential, concurrent, allSettled, then, recover, retry, timeout, command
    }

    /// What a `command` node runs.
    package enum Command: Sendable, Equatable {
        /// A string run with `/bin/sh -c`.
        case shell(String)
        /// argv, no shell.
        case argv([String])
    }

    package var kind: Kind
    package var name: String
    package var weight: Double?
    /// `id`: names the node for `needs` (unique in the file; letters, digits, `-`, `_`, `.`).
    package var id: String?
    /// `needs`: the ids of the nodes that must succeed before this one starts.
    package var needs: [String] = []
    /// `allowFailure`: the node's failure (or skip) does not fail the run, its group or the
    /// nodes that need it; views show it as an allowed failure, counted apart.
    package var allowFailure = false
    /// Where `id` and each of `needs` stand in the file (for messages).
    var idPosition: JSONPosition?
    var needsPositions: [JSONPosition] = []
    package var children: [ScenarioNode] = []
    // work
    package var duration: Double = 1
    package var steps: Int = 10
    package var phases: [String] = []
    package var fail = false
    package var failAt: Double?
    package var failProbability: Double?
    package var message: String?
    // retry / timeout
    package var attempts: Int = 3
    package var seconds: Double = 0
    // command
    package var run: Command?
    /// The working directory, resolved against the scenario file's directory.
    package var cwd: String?
    package var env: [String: String] = [:]
    /// The progress regex (validated).
    package var progress: String?
    /// Seconds between SIGTERM and SIGKILL when cancelled.
    package var grace: Double?

    package init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    /// Nodes in the tree (the scenario's own, not the adapters the builder adds).
    package var count: Int { 1 + children.reduce(0) { $0 + $1.count } }

    /// Gives every `command` node without a `cwd` in this subtree the directory `path`.
    package mutating func defaultCommandDirectory(_ path: String) {
        if kind == .command && cwd == nil { cwd = path }
        for i in children.indices { children[i].defaultCommandDirectory(path) }
    }

    /// Whether this node or a descendant runs a real command.
    package var hasCommands: Bool { kind == .command || children.contains { $0.hasCommands } }
}

/// A scenario that cannot be used: `FILE:LINE:COLUMN: message` (the message names the
/// node's JSON path where one is to blame).
package struct ScenarioError: Error, CustomStringConvertible, Sendable, Equatable {
    package var file: String
    package var position: JSONPosition?
    package var message: String

    /// An error in `file` at `position` (nil: the whole file).
    package init(file: String, position: JSONPosition?, message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    package var description: String {
        if let position { return "\(file):\(position.line):\(position.column): \(message)" }
        return "\(file): \(message)"
    }
}

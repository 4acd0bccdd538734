/// What a node's run started from (docs/taskview.md, "Flaky nodes"): its definition
/// (`DefinitionKey`) and, when its directory is inside a git work tree, the commit and
/// whether the tree was dirty. Two runs with equal keys had the same inputs, so one that
/// failed and one that succeeded make the node flaky.
package struct InputKey: Hashable, Sendable {
    package var definition: String?
    package var commit: String?
    package var dirty: Bool?

    package init(definition: String?, commit: String? = nil, dirty: Bool? = nil) {
        self.definition = definition
        self.commit = commit
        self.dirty = dirty
    }

    /// The key a history row was written with.
    package init(_ node: HistoryEntry.Node) {
        self.init(definition: node.key, commit: node.commit, dirty: node.dirty)
    }

    /// The input key of every node of `scenario` by its `NodePath`: its definition key and the
    /// git state (`git`, by directory) of its directory: its `cwd`, else `base` (the
    /// scenario file's directory).
    package static func keys(_ scenario: Scenario, base: String, git: [String: GitInput]) -> [String: InputKey] {
        let definitions = DefinitionKey.keys(scenario)
        let dirs = directories(scenario, base: base)
        var out: [String: InputKey] = [:]
        for (path, definition) in definitions {
            let g = dirs[path].flatMap { git[$0] }
            out[path] = InputKey(definition: definition, commit: g?.commit, dirty: g?.dirty)
        }
        return out
    }

    /// The directory of every node of `scenario` by its `NodePath`: its `cwd` (resolved
    /// against `base` when relative), else `base`.
    package static func directories(_ scenario: Scenario, base: String) -> [String: String] {
        var out: [String: String] = [:]
        func walk(_ node: ScenarioNode, _ path: String) {
            if let cwd = node.cwd, !cwd.isEmpty {
                out[path] = cwd.hasPrefix("/") ? cwd : base + "/" + cwd
            } else {
                out[path] = base
            }
            var seen: [String: Int] = [:]
            for child in node.children {
                let name = Sanitizer.clean(child.name)
                let ordinal = (seen[name] ?? 0) + 1
                seen[name] = ordinal
                walk(child, path + "/" + NodePath.component(name, ordinal: ordinal))
            }
        }
        walk(scenario.root, NodePath.component(Sanitizer.clean(scenario.root.name), ordinal: 1))
        return out
    }
}

/// A directory's git state when a run started.
package struct GitInput: Hashable, Sendable {
    /// `HEAD`'s commit (40 or 64 hex digits).
    package var commit: String
    /// Whether tracked files differed from `HEAD` (untracked files do not count).
    package var dirty: Bool

    package init(commit: String, dirty: Bool) {
        self.commit = commit
        self.dirty = dirty
    }
}

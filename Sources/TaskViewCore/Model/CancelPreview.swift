import TaskGraph

/// What cancelling a node will do, for the `x` confirmation: how many running subtasks go
/// with it, and which ancestors the upward rule cancels (Cancelling, "Upward": every unsettled
/// ancestor up to, not including, the first `allSettled`, which absorbs the cancel).
package struct CancelPreview: Sendable, Equatable {
    package let node: Int
    /// The node a cancel reaches: `node`, or for a span the scope or task that owns it.
    package let target: Int
    /// The row name of the node.
    package let name: String
    /// Executing descendants (not counting the node).
    package let runningSubtasks: Int
    /// Names of the ancestors cancelled with it, nearest first.
    package let ancestors: [String]
    /// False when the node has settled: there is nothing to cancel.
    package let cancellable: Bool
    /// The attached program the node runs in (`NAME (pid N)`), nil outside `attach`.
    package let program: String?
    /// For a span (AsyncScopes): its name; `name` is then the scope or task that owns it, the
    /// one a cancel reaches.
    package let span: String?
    /// Why nothing can be cancelled although the node runs (a span no scope or task owns).
    package let readOnly: String?
    /// The node has no subtasks; `leafRunning`: and it is executing.
    package let isLeaf: Bool
    package let leafRunning: Bool
    /// A `GraphService` node: its cancel cancels that service's `run()`; a service group's
    /// (a service whose children are services) shuts the group down gracefully instead.
    package let service: ServiceRole?

    /// What a service node's cancel does (servers.md "Services as nodes").
    package enum ServiceRole: Sendable, Equatable {
        case service, group
    }

    package init(tree: TreeModel, display: DisplayTree, node selected: Int) {
        self.node = selected
        // A span is not a task: a cancel reaches its nearest scope or task.
        var node = selected
        var spanName: String?
        if tree.nodes[selected].kind == NodeKind.span {
            spanName = tree.nodes[selected].name
            var p = Int(tree.nodes[selected].parent)
            while p >= 0, tree.contains(p), tree.nodes[p].kind == NodeKind.span { p = Int(tree.nodes[p].parent) }
            if p >= 0, tree.contains(p), tree.nodes[p].kind != TreeModel.programKind { node = p }
        }
        span = spanName
        target = node
        let owned = spanName == nil || node != selected
        readOnly =
            owned || tree.nodes[selected].display.isFinal ? nil : "read-only: no task of this program owns this span"
        name = tree.nodes[display.content(node)].name
        cancellable = owned && !tree.nodes[node].display.isFinal
        var running = 0
        var stack: [Int32] = tree.nodes[node].children
        while let c = stack.popLast() {
            let ci = Int(c)
            guard tree.contains(ci) else { continue }
            if tree.nodes[ci].state == .executing { running += 1 }
            stack.append(contentsOf: tree.nodes[ci].children)
        }
        runningSubtasks = running
        if tree.nodes[node].kind == NodeKind.service {
            let group = tree.nodes[node].children.contains { c in
                tree.contains(Int(c)) && tree.nodes[Int(c)].kind == NodeKind.service
            }
            service = group ? .group : .service
        } else {
            service = nil
        }
        isLeaf = tree.nodes[node].children.isEmpty
        leafRunning = isLeaf && tree.nodes[node].state == .executing
        var names: [String] = []
        var p = Int(tree.nodes[node].parent)
        var absorbed = false
        var top = node
        while p >= 0 && tree.contains(p) {
            let n = tree.nodes[p]
            top = p
            // A program row of `attach` is not a task: the upward rule stops below it. Scopes
            // have no upward rule (AsyncScopes article), nor have the spans above them.
            if n.state.isSettled || n.kind == NodeKind.allSettled || n.kind == TreeModel.programKind
                || n.kind == NodeKind.scope || n.kind == NodeKind.span || n.kind == NodeKind.service
            {
                absorbed = true
            }
            if !absorbed && !display.isFolded(p) { names.append(tree.nodes[display.content(p)].name) }
            p = Int(n.parent)
        }
        let scopeLike = tree.nodes[node].kind == NodeKind.scope || tree.nodes[node].kind == NodeKind.service
        ancestors = cancellable && !scopeLike ? names : []
        program = top != node && tree.nodes[top].kind == TreeModel.programKind ? tree.nodes[top].name : nil
    }

    /// "Cancel NAME and its N running subtasks? [y/N]"; for a leaf, which has no subtasks,
    /// "Cancel NAME (it is running)? [y/N]" (or just "Cancel NAME? [y/N]" before it runs).
    package var prompt: String {
        let place = program.map { " in " + $0 } ?? ""
        switch service {
        case .group: return "Shut down service group \(name)\(place) gracefully (triggerGracefulShutdown)? [y/N]"
        case .service: return "Cancel service \(name)\(place) (its run() is cancelled)? [y/N]"
        case nil: break
        }
        let runs = span.map { ", which runs span " + $0 + "," } ?? ""
        if isLeaf { return "Cancel \(name)\(runs)\(place)\(leafRunning ? " (it is running)" : "")? [y/N]" }
        let noun = runningSubtasks == 1 ? "subtask" : "subtasks"
        return "Cancel \(name)\(runs)\(place) and its \(runningSubtasks) running \(noun)? [y/N]"
    }

    /// What a confirmed cancel says when the node (the one a cancel reaches) settled before
    /// it: "NAME had finished: nothing cancelled".
    package var finishedMessage: String { "\(name) had finished: nothing cancelled" }

    /// The line about the upward rule (nil when no ancestor goes with it).
    package var upwardNote: String? {
        guard !ancestors.isEmpty else { return nil }
        return "Also cancels (upward): " + ancestors.joined(separator: ", ")
    }
}

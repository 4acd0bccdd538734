import Synchronization

/// What `GraphTracer` (module `TaskGraphTracing`) uses to make spans nodes of kind `span`:
/// a span node runs from its start to its end like a scope, holds the scopes and spans made
/// inside it, and is not a task (cancelling it cancels its nearest scope or task, see
/// `Graph.cancel`). `package`: not API of the library.
package enum SpanNodes {
    /// A span's node.
    package typealias Node = GraphTask<Void, any Error>

    /// Whether a tracer installed `contextSpan` (read with a relaxed load by every scope).
    static let lookupInstalled = Atomic<Bool>(false)
    private static let lookup = ContextLookupSlot()

    /// Lets scopes find the span node the current trace context names (their parent when it
    /// is the innermost). The last call wins.
    package static func installContextLookup(_ lookup: @escaping @Sendable () -> AnyGraphTask?) {
        self.lookup.install(lookup)
        lookupInstalled.store(true, ordering: .relaxed)
    }

    static func contextSpan() -> AnyGraphTask? { lookup.find() }

    /// Whether `a` is `b` or one of its ancestors.
    static func isAncestor(_ a: AnyGraphTask, of b: AnyGraphTask) -> Bool {
        var t: AnyGraphTask? = b
        var hops = 0
        while let x = t, hops < 100_000 {
            if x === a { return true }
            t = x.withStripe { _ in x._parent }
            hops += 1
        }
        return false
    }

    /// Starts a span node named `name` in `graph`, executing: its parent is the innermost of
    /// `contextParent` (the span of the trace context, when it is a node of `graph`) and the
    /// current scope, else it is a root.
    package static func begin(name: String, graph: Graph, contextParent: AnyGraphTask?) -> Node {
        var parent = ScopeContext.node
        if let p = parent, p.graph !== graph { parent = nil }
        if let c = contextParent, c.graph === graph {
            // The context's span is the innermost unless the current scope was opened inside it.
            if let p = parent, !isAncestor(p, of: c) {
                parent = p
            } else {
                parent = c
            }
        }
        return ScopeRun.makeNode(name: name, weight: 1, graph: graph, parent: parent, kindIndex: KindIndex.span).0
    }

    /// Ends the span node: completed, or failed with `failure` (the status message or the
    /// recorded error). A node cancelled meanwhile stays cancelled; a span that fails after
    /// the graph cancelled a scope or task inside it (its work ended by that cancel, the Swift
    /// way: a `CancellationError` reached the span) is cancelled, source `child`. Returns
    /// whether the node ended cancelled.
    @discardableResult
    package static func end(_ node: Node, failure: String?) -> Bool {
        if let failure {
            let byGraph = node.withStripe { _ in
                node._state == .executing && (node.driver as? ScopeDriver)?.childCancelledByGraph == true
            }
            if byGraph {
                node.cancel(source: CancelSource.child)
            } else {
                node.settle(.failure(SpanFailure(description: failure)))
            }
        } else {
            node.settle(.success(()))
        }
        return node.withStripe { _ in node._state == .cancelled }
    }

    /// A span event: shown as the node's progress info.
    package static func event(_ node: Node, _ name: String) {
        let fraction = node.withStripe { _ in node._fraction }
        node.report(TaskProgress(fraction, info: name))
    }

    /// The span's attributes, recorded (`Graph.setAttributes`'s bounds).
    package static func attributes(_ node: Node, _ list: [NodeAttribute]) {
        let kept = Array(list.prefix(NodeAttribute.maxCount))
        node.withStripe { s in
            guard node._state == .executing else { return }
            node.graph.emit(s, .attributes(id: node.id, attributes: kept))
        }
    }

    /// The span's new operation name, while it runs: the node takes it (`Graph.rename`).
    package static func rename(_ node: Node, _ name: String) {
        guard node.withStripe({ _ in node._state == .executing }) else { return }
        node.graph.rename(node.id, to: name)
    }

    /// The node `GraphScope.current` names in the calling task, if any.
    package static var currentScopeNode: AnyGraphTask? { ScopeContext.node }
}

/// A span's failure as its node records it: the message only.
struct SpanFailure: Error, CustomStringConvertible {
    let description: String
}

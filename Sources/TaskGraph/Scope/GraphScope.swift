/// A node of the graph that a piece of async code runs as: what `withGraphTask` gives its
/// body, and what `GraphScope.current` finds in the Swift task that runs it and in the tasks
/// it makes in structured concurrency (`async let`, task groups) or with `Task {}`.
///
/// ```swift
/// try await withGraphTask("import") { scope in
///     for (i, file) in files.enumerated() {
///         try await load(file)
///         scope.progress(Double(i + 1) / Double(files.count), info: file)
///     }
/// }
/// ```
public struct GraphScope: Sendable {
    /// The scope's task: a `scope` node made by `withGraphTask`, or a `GraphTask.async` task
    /// whose body runs (its own node is the current scope there).
    @usableFromInline let node: AnyGraphTask

    @usableFromInline init(node: AnyGraphTask) { self.node = node }

    /// The scope's node in its graph.
    public var id: NodeID { node.id }

    /// The graph the scope's node belongs to.
    public var graph: Graph { node.graph }

    /// Reports the scope's own progress: `fraction` (clamped to `0...1`) and an optional
    /// `info` shown in the row. Recorded only while the scope runs and only on change. From
    /// the first report on, the scope no longer shows its children's progress.
    public func progress(_ fraction: Double, info: String? = nil) {
        progress(TaskProgress(fraction, info: info))
    }

    /// Reports the scope's own progress (see `progress(_:info:)`).
    public func progress(_ progress: TaskProgress) {
        node.withStripe { _ in
            guard let d = node.driver as? ScopeDriver else { return }
            d.recordPendingLocked(owner: node) // `report` compares with what is recorded
            d.ownProgress = true
        }
        node.report(progress)
    }

    /// The scope the calling Swift task runs in (a task-local), or nil.
    public static var current: GraphScope? {
        ScopeContext.node.map(GraphScope.init(node:))
    }
}

/// The task-local through which the core learns about Swift's task tree: the node of the
/// innermost scope, inherited by `async let`, task-group children and `Task {}` (not by
/// `Task.detached`).
@usableFromInline
enum ScopeContext {
    /// The task-local itself (what `@TaskLocal` would declare as `$node`), declared as such so
    /// that the inlinable `withGraphTask` can bind it.
    @usableFromInline static let local = TaskLocal<AnyGraphTask?>(wrappedValue: nil)

    /// The innermost scope's node in the calling task, or nil.
    static var node: AnyGraphTask? { local.get() }
}

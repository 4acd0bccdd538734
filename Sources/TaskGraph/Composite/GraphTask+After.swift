/// `after(_:)`: dependencies between tasks anywhere in a graph.
extension GraphTask {
    /// Runs this task only after every task in `prerequisites` has succeeded; if one of them
    /// fails, is cancelled, or can never run (never executed, and whatever would have run it
    /// has settled), this task is skipped: it is never executed, and the returned task is
    /// cancelled with source `needs` (`CancelSource.needs`), its info saying why
    /// (`needs build, which failed`). Otherwise it settles as this task does.
    ///
    /// Prerequisites run once however many tasks need them (as a shared task does): one that
    /// another composite has adopted (it has its place in the tree) is waited for, never
    /// run again, and runs in its adopter's order; one that nobody has adopted when the
    /// returned task starts is adopted then, as a subtask after this one, and started. So a
    /// builder can first lay out its whole tree and then say who needs whom.
    ///
    /// In the graph the returned task is a node of kind `after`, named after this task
    /// unless `name` is given, and the parent of this task (subtask 0): a view folds it into
    /// its child's row as it folds `map`, so the tree stays as written. While it waits it
    /// reports progress 0 with info `waiting for A, B` (the prerequisites still to come, by
    /// name: the first 10, then `and N more`); afterwards it reports this task's progress. Waiting for one of its own
    /// ancestors (which wait for it) is a programmer error, trapped with a clear message.
    public func after(_ prerequisites: [AnyGraphTask], name: String? = nil) -> GraphTask {
        after(prerequisites, labels: nil, name: name)
    }

    /// `after(_:name:)` with the prerequisites named `labels` in the info texts (taskview:
    /// the scenario's ids) instead of their task names; a failure of the prerequisites at
    /// `tolerated` (indexes) counts as done (taskview's `allowFailure`).
    package func after(
        _ prerequisites: [AnyGraphTask], labels: [String]?, tolerated: Set<Int> = [], name: String?
    ) -> GraphTask {
        let owner = GraphTask(graph: graph, kindIndex: KindIndex.after, name: name ?? self.name, body: nil)
        let driver = AfterDriver(
            receiver: self, prerequisites: prerequisites,
            labels: labels ?? prerequisites.map(\.name), tolerated: tolerated
        ) { owner, receiver in
            let r = unsafeDowncast(receiver, to: GraphTask.self)._result!
            unsafeDowncast(owner, to: GraphTask.self).settle(r)
        }
        owner.installGroup(
            remake: { copies, n in
                unsafeDowncast(copies[0], to: GraphTask.self).after(
                    prerequisites, labels: labels, tolerated: tolerated, name: n ?? name)
            }, driver)
        return owner
    }
}

extension AnyGraphTask {
    /// The driver that keeps this task's scope children, made on first use for a running
    /// `GraphTask.async` task; nil when the task does not run (or is a composite of another
    /// kind). Stripe locked.
    func scopeDriverLocked() -> ScopeDriver? {
        assertStripeLocked()
        guard _state == .executing else { return nil }
        if let d = driver { return d as? ScopeDriver }
        guard body == nil else { return nil }
        let d = ScopeDriver(derives: false)
        driver = d
        return d
    }

    /// A root executed (or awaited) while a scope of its graph is current becomes that scope's
    /// child (the AsyncScopes article). Called by `execute()` once the graph has
    /// seen a scope: the task-local lookup is paid only then.
    @inline(never)
    func joinCurrentScope() {
        guard let scope = ScopeContext.node, scope !== self, scope.graph === graph else { return }
        let report: ProgressReport? = scope.withFamily([self]) {
            guard !_adopted, !_state.isSettled, let d = scope.scopeDriverLocked() else { return nil }
            // A running task may be the scope's own ancestor: adopting it would make a cycle.
            if _state == .executing {
                var a: AnyGraphTask? = scope
                while let t = a {
                    if t === self { return nil }
                    a = t._parent
                }
            }
            let index = d.reserveLocked()
            adoptLocked(by: scope, index: index)
            return d.addLocked(self, index: index, owner: scope)
        }
        if let report { Trampoline.enter { report.deliver(scope) } }
    }
}

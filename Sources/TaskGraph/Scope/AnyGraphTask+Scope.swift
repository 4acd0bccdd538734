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

extension AnyGraphTask {
    /// Whether the scope (or span, or running `GraphTask.async` task) that keeps this task
    /// was cancelled while this task still ran: that cancel is on its way here
    /// (`cancelByParent`, after the parent's lock was let go), and until it arrives this task
    /// must not settle another way (the AsyncScopes article: a graph cancel of a scope cancels
    /// its running children at once, with source `parent`). A family shares one stripe, whose
    /// lock is held.
    @usableFromInline
    final func scopeParentCancelledLocked() -> Bool {
        assertStripeLocked()
        // The parent's state is read only once its stripe is known to be this one.
        guard _adopted, let p = _parent, p._stripe.load(ordering: .relaxed) == _stripe.load(ordering: .relaxed),
            p._state == .cancelled
        else { return false }
        return p.driver is ScopeDriver
    }

    /// Settles this task as its cancelled parent's cancel would (`scopeParentCancelledLocked`).
    @usableFromInline
    final func cancelWithScopeParent() {
        Trampoline.enter { cancel(source: CancelSource.parent, byParent: true) }
    }
}

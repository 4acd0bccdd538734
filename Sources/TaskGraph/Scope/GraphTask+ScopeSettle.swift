extension GraphTask where Success == Void, Failure == any Error {
    /// Completes a scope's node whose body returned: what `settle(.success(()))` does, in one
    /// locked step with its parent's count when it can. A scope's node has no handlers (its
    /// task is internal) and its parent, a scope or a running `GraphTask.async` task, keeps
    /// it in a `ScopeDriver` in the same stripe: that driver counts it done under the same
    /// lock, with no trip through the trampoline and no second locking. Anything else (a
    /// handler, another kind of parent) takes `settle`.
    func completeScope() {
        let stripe = lockStripeUnretained()
        if _state == .executing && scopeParentCancelledLocked() {
            stripe.unlock()
            cancelWithScopeParent()
            return
        }
        guard _state == .executing, handlers.isEmpty, _extras?.cancelHandlers.isEmpty ?? true else {
            stripe.unlock()
            settle(.success(()))
            return
        }
        let parent = executingParentLocked()
        let parentDriver = parent.flatMap { p in
            p._stripe.load(ordering: .relaxed) == _stripe.load(ordering: .relaxed) ? p.driver as? ScopeDriver : nil
        }
        if parent != nil && parentDriver == nil {
            stripe.unlock()
            settle(.success(()))
            return
        }
        driver?.ownerSettlingLocked(owner: self)
        _state = .completed
        _outcome = Result<Void, any Error>.success(())
        _fraction = 1
        let released = stripe.with { graph.setStateLocked($0, slot, .completed) }
        let oldDriver = driver
        if oldDriver != nil { driver = nil }
        let report = parentDriver.flatMap { d in parent.map { d.settleLocked(owner: $0, _index) } } ?? nil
        stripe.unlock()
        if let report, let parent { Trampoline.enter { report.deliver(parent) } }
        withExtendedLifetime(released) {}
        withExtendedLifetime(oldDriver) {}
    }
}

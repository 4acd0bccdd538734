internal import CTaskGraphRuntime
import Synchronization

// The engine side of cancelling a task (`AnyGraphTask.cancel()` is the public surface): the
// locked step, its effects after unlocking, and cancels the graph recorded while it could not
// reach the task.

extension AnyGraphTask {
    /// Takes a cancel the graph recorded while it could not reach this task (see
    /// `Graph.cancel`): one atomic load when there is none.
    @inlinable @inline(__always)
    func resolvePendingCancel() {
        if graph.pendingCancelCount.load(ordering: .relaxed) > 0 { takePendingCancel() }
    }

    @usableFromInline
    func takePendingCancel() {
        var handlers: [@Sendable () -> Void] = []
        var waiters = HandlerList()
        var garbage: (AnyObject?, (@Sendable (AnyGraphTask) -> Void)?, Any?) = (nil, nil, nil)
        var parent: AnyGraphTask?
        var index = 0
        let took: Bool = withStripe { _ in
            guard _state == .notExecuted,
                let source = graph.pendingLock.withLock({ graph.pendingCancels.removeValue(forKey: rawID) })
            else { return false }
            graph.pendingCancelCount.subtract(1, ordering: .relaxed)
            _state = .cancelled
            _cancelSource = source
            // Adopted since it was cancelled: its parent reacts now (the upward rule).
            if let p = _parent, !p._state.isSettled {
                parent = p
                index = _index
            }
            handlers = takeCancelHandlersLocked()
            waiters = takeHandlersLocked()
            garbage = (driver, body, takeWorkLocked())
            driver = nil
            body = nil
            return true
        }
        guard took else { return }
        for h in handlers { h() }
        waiters.send(.cancelled, nil)
        if let parent { Trampoline.enter { Trampoline.run(parent, .childCancelled, index) } }
        withExtendedLifetime(garbage.0) {}
        withExtendedLifetime(garbage.1) {}
        withExtendedLifetime(garbage.2) {}
    }

    /// What a cancel does after its stripe is unlocked (see `cancel(source:byParent:)`).
    private struct CancelEffects {
        var handlers: [@Sendable () -> Void] = []
        var children: [AnyGraphTask] = []
        var parent: AnyGraphTask?
        var index = 0
        var released: AnyGraphTask?
        var waiters = HandlerList()
        var oldBody: (@Sendable (AnyGraphTask) -> Void)?
        var oldWork: Any?
        var refs: [AnyGraphTask] = []
        /// The driver to tell once unlocked (`CompositeDriver.ownerCancelled`), if it asks.
        var notice: CompositeDriver?
    }

    /// The locked step of a cancel: nil when there is nothing to do; `needsAll` when this is
    /// a shared task whose refs (in other stripes) must be looked at, which takes every
    /// stripe's lock; rare, so the common cancel takes only its own. (Its results are
    /// returned, not written to captured locals: those were boxed, each access checked for
    /// exclusivity at run time, 18 % of a large cancel.)
    private func cancelLocked(_ s: Stripe, all: Bool, source: String, byParent: Bool) -> (
        needsAll: Bool, effects: CancelEffects?
    ) {
        s.assertLocked()
        guard _state == .notExecuted || _state == .executing else { return (false, nil) }
        // Its scope was cancelled first (that cancel is on its way): the parent is who asked.
        let source = !byParent && scopeParentCancelledLocked() ? CancelSource.parent : source
        let sharing = _sharing.flatMap { $0.source === self ? $0 : nil }
        if sharing != nil && !all { return (true, nil) }
        // A shared task: a consumer cancelling downward only lets go while others wait.
        if byParent, let sh = sharing, sh.anyRefWaitingLocked() { return (false, nil) }
        var e = CancelEffects()
        driver?.ownerSettlingLocked(owner: self)
        _state = .cancelled
        _cancelSource = source
        e.released = graph.setStateLocked(s, slot, .cancelled, cancelRequest: (rawID, source))
        e.handlers = takeCancelHandlersLocked()
        e.waiters = takeHandlersLocked()
        // A leaf's work goes with its body; once a starter took the body, the work is its.
        if body != nil { e.oldWork = takeWorkLocked() }
        e.oldBody = body
        body = nil
        // The driver (and the subtasks it holds) stays until this task is released, so
        // cancel() does not pay for freeing a large subtree; a driver of a cancelled
        // task ignores everything (each of its steps checks that the owner executes).
        if let d = driver {
            e.children = d.executingChildrenLocked()
            if d.noticesCancel { e.notice = d }
        }
        if !byParent, let p = _parent, !p._state.isSettled {
            e.parent = p
            e.index = _index
        }
        if !byParent, let sh = sharing { e.refs = sh.unsettledRefsLocked() }
        return (false, e)
    }

    func cancel(source: String, byParent: Bool) {
        resolvePendingCancel()
        var (needsAll, effects) = withStripe { s in cancelLocked(s, all: false, source: source, byParent: byParent) }
        if needsAll {
            effects = graph.withAllStripes {
                cancelLocked(lockedStripe, all: true, source: source, byParent: byParent).effects
            }
        }
        guard let e = effects else { return }
        for h in e.handlers { h() }
        e.notice?.ownerCancelled(owner: self)
        // Then the subtree, and only then internal waiters (`value`, `wait`): a program that
        // wakes on this task's cancel (and, say, stops its recorder or server) finds its
        // executing subtasks cancelled too, not still executing (deeper than the
        // trampoline's inline depth, the rest follows before `cancel()` returns).
        let childSource = CancelSourceCode.code(for: CancelSource.parent)
        for child in e.children { Trampoline.run(child, .cancelByParent, childSource) }
        // The other handlers never run.
        if !e.waiters.isEmpty { e.waiters.send(.cancelled, nil) }
        if let parent = e.parent { Trampoline.run(parent, .childCancelled, e.index) }
        // A shared task reaches its other consumers through their refs (upward from there).
        for r in e.refs { Trampoline.run(r, .childCancelled, 0) }
        withExtendedLifetime(e.released) {}
        withExtendedLifetime(e.oldBody) {}
        withExtendedLifetime(e.oldWork) {}
    }
}

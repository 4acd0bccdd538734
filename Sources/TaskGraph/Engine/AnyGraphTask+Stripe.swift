internal import CTaskGraphRuntime
import Synchronization

// The engine side of a task (AnyGraphTask.swift holds its public surface): locking its stripe,
// moving tasks into their parent's stripe, adoption, and what locked steps take out of a task.

extension AnyGraphTask {
    /// Locks this task's stripe and returns it: the stripe's lock guards the task's state.
    @inlinable @inline(__always)
    final func lockStripe() -> Stripe {
        lockStripeUnretained().takeUnretainedValue()
    }

    /// `lockStripe` without retaining the stripe (the graph keeps it alive): for hot paths.
    @inlinable @inline(__always)
    final func lockStripeUnretained() -> Unmanaged<Stripe> {
        while true {
            let i = stripeIndexAcquiring
            let u = graph.stripeRefs[i]
            let m = u.mutex
            m.lock()
            // Moved meanwhile (an adoption across stripes): lock the new one.
            if stripeIndex == i { return u }
            m.unlock()
        }
    }

    /// This task's stripe, while its lock is held.
    @usableFromInline
    var lockedStripe: Stripe { graph.stripes[stripeIndex] }

    /// Runs `body` with the stripe of this task locked, after moving the subtrees of those of
    /// `others` in another stripe into this task's (they are about to become its subtasks: a
    /// task, its parent and its subtasks share one stripe). One that another composite
    /// adopted already stays where it is (it is shared: this task gets a `ref` node for it);
    /// its `_adopted`, once seen true, never changes, so `body` may read it.
    final func withFamily<T>(_ others: [AnyGraphTask], _ body: () throws -> T) rethrows -> T {
        var movable = others
        while true {
            let s = lockStripe()
            if movable.allSatisfy({ $0.graph !== graph || $0.stripeIndex == s.index }) {
                defer { s.lock.unlock() }
                return try body()
            }
            s.lock.unlock()
            movable = moveIntoStripe(movable)
        }
    }

    /// Moves those of `others` in another stripe into this task's, with both stripes locked
    /// (in index order). Rare: only an adoption of a task made on another thread gets here.
    /// Returns those still to be checked: all but the ones found adopted elsewhere.
    private func moveIntoStripe(_ others: [AnyGraphTask]) -> [AnyGraphTask] {
        let mine = stripeIndexAcquiring
        var indices = Set(others.filter { $0.graph === graph }.map { $0.stripeIndexAcquiring })
        indices.insert(mine)
        let locked = indices.sorted().map { graph.stripes[$0] }
        for s in locked { s.lock.lock() }
        defer { for s in locked.reversed() { s.lock.unlock() } }
        // Moved meanwhile: the caller tries again.
        guard stripeIndex == mine else { return others }
        var still: [AnyGraphTask] = []
        for t in others where t.graph === graph {
            let from = t.stripeIndex
            guard indices.contains(from) else {
                still.append(t) // moved meanwhile
                continue
            }
            if from == mine {
                still.append(t)
                continue
            }
            if t._adopted { continue } // shared: stays with its adopter
            graph.moveLocked(t, from: graph.stripes[from], to: graph.stripes[mine])
            still.append(t)
        }
        return still
    }

    /// Runs `body` with this task's stripe locked.
    @inlinable @inline(__always)
    final func withStripe<T>(_ body: (Stripe) throws -> T) rethrows -> T {
        let u = lockStripeUnretained()
        defer { u.unlock() }
        return try u.with(body)
    }

    /// Takes the `onCancel` handlers out (stripe locked).
    @usableFromInline final func takeCancelHandlersLocked() -> [@Sendable () -> Void] {
        assertStripeLocked()
        guard let e = _extras, !e.cancelHandlers.isEmpty else { return [] }
        var h: [@Sendable () -> Void] = []
        swap(&h, &e.cancelHandlers)
        return h
    }

    /// Takes the handler list out, leaving it empty (stripe locked).
    @inlinable @inline(__always)
    final func takeHandlersLocked() -> HandlerList {
        assertStripeLocked()
        var list = HandlerList()
        swap(&list, &handlers)
        return list
    }

    // MARK: - Adoption

    /// Makes this task subtask number `index` of `parent`. Traps on a second adoption or a
    /// task from another graph. The stripe of both is locked (see `withFamily`).
    func adoptLocked(by parent: AnyGraphTask, index: Int) {
        assertStripeLocked()
        parent.assertStripeLocked()
        precondition(
            graph === parent.graph,
            "GraphTask '\(name)' belongs to another graph than its composite '\(parent.name)'")
        precondition(
            !_adopted,
            "GraphTask '\(name)' is already a subtask of another composite; a task is adopted at most once")
        _adopted = true
        _parent = parent
        _index = index
        if parent._state == .executing { _parentTurn = handlers.count }
        precondition(
            _stripe.load(ordering: .relaxed) == parent._stripe.load(ordering: .relaxed),
            "adopted in another stripe than its parent's")
        graph.setParentLocked(
            lockedStripe, slot, id: rawID, parentSlot: parent.slot, parent: parent.rawID, index: index)
    }
}

internal import CTaskGraphRuntime
import Synchronization

// The engine side of a task's steps on the trampoline, its settled handlers and its progress
// (AnyGraphTask.swift holds the public surface).

extension AnyGraphTask {
    // MARK: - Trampoline

    func perform(_ op: Trampoline.Op, _ arg: Int) {
        switch op {
        case .start:
            startIfNeeded()
        case .childSettled:
            lockedDriver()?.childSettled(owner: self, index: arg)
        case .childProgress:
            lockedDriver()?.childProgress(owner: self, index: arg)
        case .childCancelled:
            if let d = lockedDriver() {
                d.childCancelled(owner: self, index: arg)
            } else {
                cancel(source: CancelSource.child, byParent: false)
            }
        case .cancelByParent:
            cancel(source: CancelSourceCode.source(for: arg), byParent: true)
        case .callback:
            Trampoline.current.runCallback(arg)
        }
    }

    func lockedDriver() -> CompositeDriver? {
        withStripe { _ in driver }
    }

    // MARK: - Settled handlers

    /// Calls the settled handlers of `list` in order, telling `parent` (if any) in its turn
    /// (`_parentTurn`, read as `turn`). Returns the number of the first handler still to
    /// call when the parent's step was queued on the trampoline (the caller queues the rest
    /// behind it), else nil. Runs inside `Trampoline.enter`.
    @usableFromInline
    final func deliverSettled(
        _ list: HandlerList, _ pointer: UnsafeRawPointer, turn: Int,
        parent: AnyGraphTask?, index: Int
    ) -> Int? {
        Trampoline.unretained._withUnsafeGuaranteedRef { t in
            let mark = !list.isEmpty
            if mark { t.sending.append(ObjectIdentifier(self)) }
            defer { if mark { t.sending.removeLast() } }
            guard let parent else {
                list.sendSettled(pointer, from: 0, to: Int.max)
                return nil
            }
            list.sendSettled(pointer, from: 0, to: turn)
            if Trampoline.run(parent, .childSettled, index) || turn >= list.count {
                list.sendSettled(pointer, from: turn, to: Int.max)
                return nil
            }
            return turn
        }
    }

    /// Calls one settled handler added after the task settled; what it adds to this task
    /// meanwhile runs after it.
    @usableFromInline
    final func deliverOne(_ entry: HandlerEntry, _ pointer: UnsafeRawPointer) {
        let t = Trampoline.current
        t.sending.append(ObjectIdentifier(self))
        defer { t.sending.removeLast() }
        entry.call(.settled, pointer)
    }

    /// Calls the settled handlers of `list` from number `from` on (see `deliverSettled`).
    @usableFromInline
    final func deliverRest(_ list: HandlerList, _ pointer: UnsafeRawPointer, from: Int) {
        let t = Trampoline.current
        t.sending.append(ObjectIdentifier(self))
        defer { t.sending.removeLast() }
        list.sendSettled(pointer, from: from, to: Int.max)
    }

    // MARK: - Progress

    /// Records a new own progress and returns the parent to tell, if any. Stripe locked.
    @usableFromInline
    func recordProgressLocked(_ p: TaskProgress) -> AnyGraphTask? {
        assertStripeLocked()
        _progress = p
        graph.setProgressLocked(lockedStripe, slot, p)
        return executingParentLocked()
    }

    @usableFromInline
    func executingParentLocked() -> AnyGraphTask? {
        assertStripeLocked()
        guard let p = _parent, p._state == .executing else { return nil }
        return p
    }

    /// Reports the task's own progress: recorded and passed on only while executing and only
    /// when the fraction or the info changed.
    @usableFromInline
    func report(_ p: TaskProgress) {
        let s = lockStripe()
        guard _state == .executing, p != _progress else {
            s.lock.unlock()
            return
        }
        let parent = recordProgressLocked(p)
        let index = _index
        let list = handlers.progressCount > 0 ? handlers : HandlerList()
        s.lock.unlock()
        if list.progressCount > 0 || parent != nil {
            Trampoline.enter {
                list.sendProgress(p)
                if let parent { Trampoline.later(parent, .childProgress, index) }
            }
        }
    }

    /// After a composite recorded a new aggregate: calls the progress handlers and tells the
    /// parent.
    func didReportProgress(_ p: TaskProgress, parent: AnyGraphTask?, index: Int) {
        let list: HandlerList = withStripe { _ in
            handlers.progressCount > 0 ? handlers : HandlerList()
        }
        list.sendProgress(p)
        if let parent { Trampoline.later(parent, .childProgress, index) }
    }
}

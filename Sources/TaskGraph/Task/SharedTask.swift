/// One task, several consumers (the SharingATask article): the first composite
/// that consumes a task adopts it; every later one gets a `ref` node in its place, a child of
/// that consumer named after the shared task, whose state, progress and outcome follow it.
///
/// - Executing a ref subscribes it to the shared task (it takes its turn among the shared
///   task's handlers then, A+ order). A settled shared task settles the ref at once.
/// - Cancelling the shared task itself (not by a parent) cancels every unsettled ref at once,
///   executed or not (source `child`), so every consumer reacts by the upward rule, as its
///   adopter does; a ref executed after that is cancelled at once.
/// - A not-executed shared task is started by the ref only when its adopter is not
///   executing (nothing else would start it now); while the adopter executes, the adopter
///   starts it in its own subtask order, as `value` waits for an adopted task. Should the
///   adopter settle without starting it (a `recover` whose first link succeeded, a cancelled
///   `sequential`), the waiting ref starts it then.
/// - Downward cancel is reference counted (as glessard/deferred does): a consumer cancelling
///   the shared task as its parent (`parent`, `failFast`, `timeout`) only lets go of it; the
///   shared task is cancelled when no consumer still waits for it: no ref executing, and its
///   adopter not executing. A ref stops waiting when it is cancelled, whatever the source.
///
/// All state here is guarded by every stripe's lock (`graph.lock`, rare: only shared tasks
/// come here), because the shared task and its refs may live in different stripes.
final class SharedTask: @unchecked Sendable { // guarded by every stripe's lock
    /// The shared task (weak: it holds this object).
    weak var source: AnyGraphTask?
    /// The ref nodes standing for the shared task, in creation order. Each of them points to
    /// this object too (`_sharing`), so a copy of a ref (`retry`) is a ref of the same task.
    @exclusivity(unchecked) private(set) var refs: [Weak] = []

    init(source: AnyGraphTask) {
        self.source = source
    }

    struct Weak {
        weak var task: AnyGraphTask?
    }

    /// Registers a ref (lock held). Refs already released are swept out when the list
    /// doubles, so a long-lived task with many short-lived consumers stays small.
    private func append(_ ref: AnyGraphTask) {
        if refs.count >= 16 && refs.count & (refs.count - 1) == 0 { refs.removeAll { $0.task == nil } }
        refs.append(Weak(task: ref))
    }

    /// Whether a ref still waits for the shared task (lock held).
    func anyRefWaitingLocked() -> Bool {
        debugOnly { source?.graph.assertAllStripesLocked() }
        return refs.contains { $0.task?._state == .executing }
    }

    /// The refs not settled yet, whatever their consumers' state (lock held): cancelling the
    /// shared task itself cancels them, so every consumer reacts by the upward rule.
    func unsettledRefsLocked() -> [AnyGraphTask] {
        debugOnly { source?.graph.assertAllStripesLocked() }
        return refs.compactMap { r in r.task.flatMap { $0._state.isSettled ? nil : $0 } }
    }

    // MARK: - Making refs

    /// For a composite just built over `driver.children` (not yet executed, not yet visible to
    /// anyone else): puts a ref node in place of every child another composite adopted first.
    static func attachRefs(owner: AnyGraphTask, driver d: CompositeDriver) {
        let graph = owner.graph
        let indices: [Int] = graph.lock.withLock {
            defer { d.sharedIndices = [] }
            return d.sharedIndices
        }
        for i in indices {
            let shared = graph.lock.withLock { d.children[i] }
            let ref = makeRef(of: shared, parent: owner, index: i)
            graph.lock.withLock { d.children[i] = ref }
        }
    }

    /// The ref node for `shared` as subtask `index` of `parent` (nil: a root, adopted later),
    /// recorded (`ref` event right after its `add`) and registered with the shared task.
    static func makeRef(of shared: AnyGraphTask, parent: AnyGraphTask?, index: Int) -> AnyGraphTask {
        let ref = shared.makeRef(parent: parent, index: index)
        let graph = shared.graph
        graph.lock.withLock {
            graph.setRefLocked(ref.lockedStripe, ref.slot, of: shared.rawID)
            if shared._weight != 1 {
                ref._weight = shared._weight
                graph.setWeightLocked(ref.lockedStripe, ref.slot, shared._weight)
            }
            let s = shared._sharing ?? SharedTask(source: shared)
            shared._sharing = s
            ref._sharing = s
            s.append(ref)
        }
        return ref
    }

    // MARK: - Following

    /// What an executed ref does: see the type's comment. Runs without the lock.
    static func follow(
        _ ref: AnyGraphTask, _ shared: AnyGraphTask,
        subscribe: (HandlerEntry) -> Void, settleFrom: @escaping @Sendable (UnsafeRawPointer) -> Void
    ) {
        // Letting go: a cancelled ref no longer waits; the last consumer to go cancels it.
        ref.onCancel { release(shared) }
        subscribe(
            HandlerEntry(isProgress: true) { event, p in
                guard event == .progress, let p else { return }
                ref.report(p.assumingMemoryBound(to: TaskProgress.self).pointee)
            })
        subscribe(
            HandlerEntry(isProgress: false) { event, p in
                switch event {
                case .settled: if let p { settleFrom(p) }
                case .cancelled: ref.cancel(source: CancelSource.child, byParent: false)
                case .progress: break
                }
            })
        let graph = shared.graph
        enum Next {
            case none, start
            case report(TaskProgress)
        }
        let next: Next = graph.lock.withLock {
            switch shared._state {
            case .executing:
                let p = shared._progress
                return p == .zero ? .none : .report(p)
            case .notExecuted:
                guard let adopter = shared._parent, adopter._state == .executing else { return .start }
                // The adopter starts it in its subtask order; if it settles without doing so,
                // this ref does.
                adopter.handlers.append(
                    HandlerEntry(isProgress: false) { [weak ref] event, _ in
                        guard event != .progress, let ref else { return }
                        let go = graph.lock.withLock { ref._state == .executing && shared._state == .notExecuted }
                        if go { Trampoline.run(shared, .start) }
                    })
                return .none
            case .completed, .cancelled:
                return .none // the handlers above were called at once
            }
        }
        switch next {
        case .none: break
        case .start: Trampoline.run(shared, .start)
        case .report(let p): ref.report(p)
        }
    }

    /// A ref of `shared` was cancelled: cancels `shared` (source `parent`, downward) when no
    /// consumer still waits for it.
    static func release(_ shared: AnyGraphTask) {
        let go: Bool = shared.graph.lock.withLock {
            guard !shared._state.isSettled, let s = shared._sharing, !s.anyRefWaitingLocked() else { return false }
            if let adopter = shared._parent, adopter._state == .executing { return false }
            return true
        }
        if go { shared.cancel(source: CancelSource.parent, byParent: true) }
    }
}

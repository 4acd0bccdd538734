/// How a composite task drives its subtasks. The owner task holds its driver until it
/// settles; the driver holds the subtasks. Driver state is guarded by the graph's lock, and
/// driver methods are called without the lock held (they take it as needed).
@usableFromInline
class CompositeDriver: @unchecked Sendable { // state guarded by the graph's lock
    /// The subtasks, in subtask order.
    @exclusivity(unchecked) var children: [AnyGraphTask]

    /// Builds the same composite over fresh copies of its subtasks (for `retry`), named
    /// `name` (nil: the same name); set by the composite's constructor.
    @usableFromInline var remakeClosure: ((_ copies: [AnyGraphTask], _ name: String?) -> AnyGraphTask)?

    /// Whether `remake` can build a copy.
    var canRemake: Bool { remakeClosure != nil }

    /// The same composite over `copies` of its subtasks, named `name` (nil: the same name).
    func remake(_ copies: [AnyGraphTask], name: String?) -> AnyGraphTask? { remakeClosure?(copies, name) }

    init(children: [AnyGraphTask]) {
        self.children = children
    }

    deinit {
        // A long chain of never-run composites is released iteratively, not recursively: the
        // pool takes the only references to the children. (None: nothing to hand over, and
        // no look-up of the thread's pool; a scope's driver keeps its children elsewhere.)
        guard !children.isEmpty else { return }
        ReleasePool.hold(&children)
        ReleasePool.drain()
    }

    /// Children another composite adopted first: `install` puts ref nodes in their place.
    @exclusivity(unchecked) var sharedIndices: [Int] = []

    /// Adopts every child not adopted yet (lock held), noting the others in `sharedIndices`.
    /// Call once, right after the owner exists.
    func adoptChildrenLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
        for (i, c) in children.enumerated() {
            if c.graph === owner.graph, c._adopted {
                sharedIndices.append(i)
            } else {
                c.adoptLocked(by: owner, index: i)
            }
        }
    }

    @usableFromInline func start(owner: AnyGraphTask) {}
    func childSettled(owner: AnyGraphTask, index: Int) {}
    func childProgress(owner: AnyGraphTask, index: Int) {}
    /// A subtask was cancelled from outside: by default the owner cannot finish without it.
    func childCancelled(owner: AnyGraphTask, index: Int) {
        cancelOwner(owner)
    }
    func weightsChanged(owner: AnyGraphTask) {}

    /// The subtask whose node is `rawID`, if this driver holds it (lock held).
    func childLocked(rawID: Int) -> AnyGraphTask? {
        assertSomeLockHeld()
        return children.first { $0.rawID == rawID }
    }

    /// Whether the owner's cancel calls `ownerCancelled` (read with the owner's stripe lock
    /// held, as it moves to `cancelled`).
    var noticesCancel: Bool { false }

    /// The owner was cancelled: called once, after its stripe is unlocked, right after its
    /// `onCancel` handlers and before its executing subtasks are cancelled.
    func ownerCancelled(owner: AnyGraphTask) {}

    /// The owner is about to settle (lock held, before its state changes).
    @usableFromInline func ownerSettlingLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
    }

    /// Records the owner's progress if the driver holds a change not recorded yet (lock held):
    /// before it is read.
    func recordPendingLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
    }

    /// The subtasks to cancel when the owner is cancelled (lock held).
    func executingChildrenLocked() -> [AnyGraphTask] {
        assertSomeLockHeld()
        return children.filter { $0._state == .executing }
    }

    /// Records an aggregate the owner reports (lock held); returns what to pass on.
    func recordLocked(owner: AnyGraphTask, _ fraction: Double) -> ProgressReport {
        owner.assertStripeLocked()
        return recordLocked(owner: owner, TaskProgress(fraction))
    }

    /// Records a progress the owner reports (lock held); returns what to pass on. Whether
    /// the owner has progress handlers is read in the same lock, so passing it on takes no
    /// lock of its own unless it has some (rare on inner composites).
    func recordLocked(owner: AnyGraphTask, _ p: TaskProgress) -> ProgressReport {
        owner.assertStripeLocked()
        let parent = owner.recordProgressLocked(p)
        return ProgressReport(
            progress: p, parent: parent, index: owner._index,
            hasHandlers: owner.handlers.progressCount > 0)
    }

    // MARK: - Child handling shared by the drivers

    /// Where subtask `i` stands, as a driver reacts to it (lock held).
    enum Look {
        /// Not executed yet: the driver starts it (after unlocking, through `begin`).
        case start(AnyGraphTask)
        /// Executing: nothing to do until it settles.
        case wait
        /// Cancelled: the owner cannot finish without it (unless the driver's policy says so).
        case cancelled
        /// Completed (succeeded or failed): the driver's policy takes its outcome.
        case completed(AnyGraphTask)
    }

    /// Where subtask `i` stands (lock held).
    @inline(__always)
    final func lookLocked(_ i: Int) -> Look {
        assertSomeLockHeld()
        let c = children[i]
        switch c._state {
        case .notExecuted: return .start(c)
        case .executing: return .wait
        case .cancelled: return .cancelled
        case .completed: return .completed(c)
        }
    }

    /// Starts a subtask found not executed (lock not held), on the trampoline so that a
    /// long chain does not recurse.
    final func begin(_ child: AnyGraphTask) {
        Trampoline.run(child, .start)
    }

    /// Cancels the owner because a subtask it needs was cancelled (lock not held).
    final func cancelOwner(_ owner: AnyGraphTask) {
        owner.cancel(source: CancelSource.child, byParent: false)
    }

    // MARK: One subtask at a time (`then`/`recover`/`chain`, `retry`, `map*`/`timeout`)

    /// What a one-at-a-time driver does with its subtask in turn once it completed, decided
    /// under the lock by `completedLocked`.
    enum AfterCompleted {
        /// Nothing (the driver moved on already).
        case nothing
        /// Settle the owner from the completed subtask: `finish(owner:from:)`.
        case finish
        /// Bring in the next subtask: `next(owner:after:index:)`.
        case next
    }

    /// The subtask in turn, nil when the driver is over (lock held). Drivers that run one
    /// subtask at a time override it (and `completedLocked`, `finish`, `next`).
    func turnLocked() -> Int? {
        assertSomeLockHeld()
        return nil
    }

    /// Subtask `index`, the one in turn, completed: what to do (lock held).
    func completedLocked(owner: AnyGraphTask, index: Int) -> AfterCompleted {
        owner.assertStripeLocked()
        return .nothing
    }

    /// Settles the owner from `child`, which completed (lock not held).
    func finish(owner: AnyGraphTask, from child: AnyGraphTask) {}

    /// Brings in the subtask after `child` (number `index`), which completed (lock not held).
    func next(owner: AnyGraphTask, after child: AnyGraphTask, index: Int) {}

    /// Looks at the subtask in turn and moves on as far as it can: starts it, waits for it,
    /// cancels the owner when it was cancelled, or hands its outcome to the policy. With
    /// `settled`, only when that subtask is the one in turn (a settled subtask that is not
    /// in turn changes nothing).
    final func step(owner: AnyGraphTask, settled: Int? = nil) {
        enum Next {
            case none
            case start(AnyGraphTask)
            case cancel
            case finish(AnyGraphTask)
            case next(AnyGraphTask, Int)
        }
        let next: Next = owner.withStripe { _ in
            guard owner._state == .executing, let i = turnLocked(), settled == nil || settled == i else { return .none }
            switch lookLocked(i) {
            case .start(let c): return .start(c)
            case .wait: return .none
            case .cancelled: return .cancel
            case .completed(let c):
                switch completedLocked(owner: owner, index: i) {
                case .nothing: return .none
                case .finish: return .finish(c)
                case .next: return .next(c, i)
                }
            }
        }
        switch next {
        case .none: break
        case .start(let c): begin(c)
        case .cancel: cancelOwner(owner)
        case .finish(let c): finish(owner: owner, from: c)
        case .next(let c, let i): self.next(owner: owner, after: c, index: i)
        }
    }

    /// Adopts `made`, a subtask made while the owner runs (the task a `then` closure
    /// returned, a retry's next attempt), as subtask `index`, checking and adopting in one
    /// step. Returns what the owner holds as that subtask: `made`, or a ref node when
    /// another composite adopted `made` first (Composition, "One node per task"). Nil when the
    /// owner holds a subtask `index` already (given up front). Traps when `made` is the owner
    /// or one of its ancestors (it could never settle).
    final func adoptMade(_ made: AnyGraphTask, owner: AnyGraphTask, index: Int) -> AnyGraphTask? {
        enum Adopt { case held, adopted, shared }
        // The task may have been made on another thread: `withFamily` moves it into the
        // owner's stripe first, unless another composite adopted it there.
        let how = owner.withFamily([made]) { () -> Adopt in
            // An ancestor of the owner shares its stripe; a task elsewhere cannot be one.
            if made._stripe.load(ordering: .relaxed) == owner._stripe.load(ordering: .relaxed),
                let cycle = Self.cycleMessageLocked(next: made, owner: owner)
            {
                preconditionFailure(cycle)
            }
            guard children.count <= index else { return .held }
            // A task of another graph traps in `adoptLocked`, with a clear message.
            if made.graph === owner.graph, made._adopted { return .shared }
            made.adoptLocked(by: owner, index: index)
            return .adopted
        }
        switch how {
        case .held: return nil
        case .adopted: return made
        case .shared: return SharedTask.makeRef(of: made, parent: owner, index: index)
        }
    }

    /// Adopts `made` as subtask `index` at once when it lives in the owner's stripe and no
    /// composite adopted it yet (the usual case: made on this thread), so the caller can go
    /// on in the same lock. Owner's stripe `s` locked. False: nothing done, use `adoptMade`.
    final func adoptMadeLocked(_ made: AnyGraphTask, owner: AnyGraphTask, index: Int, _ s: Stripe) -> Bool {
        s.assertLocked()
        // Same stripe: `made`'s state is guarded by the lock held, and it cannot move away.
        guard made.graph === owner.graph, made.stripeIndex == s.index,
            children.count <= index, !made._adopted
        else { return false }
        if let cycle = Self.cycleMessageLocked(next: made, owner: owner) { preconditionFailure(cycle) }
        made.adoptLocked(by: owner, index: index)
        return true
    }

    /// Why `next`, a subtask made while `owner` runs, can never settle: it is `owner` itself
    /// or one of its ancestors, which wait for `owner` (it would hang forever). Nil when it
    /// is fine. Owner's stripe locked.
    static func cycleMessageLocked(next: AnyGraphTask, owner: AnyGraphTask) -> String? {
        owner.assertStripeLocked()
        // Only an executing task can be one of them: a fresh task costs one check, not a walk.
        guard next._state == .executing else { return nil }
        var a: AnyGraphTask? = owner
        while let t = a {
            if t === next {
                let what = t === owner ? "its own task" : "a task that waits for it"
                return "GraphTask '\(owner.name)' #\(owner.rawID): its closure returned \(what) "
                    + "('\(next.name)' #\(next.rawID)), which could never settle"
            }
            a = t._parent
        }
        return nil
    }
}

/// A progress a composite recorded under its lock, and whom to tell once it is unlocked.
struct ProgressReport {
    let progress: TaskProgress
    /// The owner's executing parent, told through the trampoline (no recursion up a chain).
    let parent: AnyGraphTask?
    let index: Int
    /// Whether the owner had progress handlers when it recorded `progress`.
    let hasHandlers: Bool

    /// Calls the progress handlers of `owner` (the task that recorded it), then tells its
    /// parent (lock not held).
    func deliver(_ owner: AnyGraphTask) {
        if hasHandlers {
            owner.didReportProgress(progress, parent: parent, index: index)
        } else if let parent {
            Trampoline.later(parent, .childProgress, index)
        }
    }
}

/// `sum(weight_i * fraction_i) / sum(weight_i)` kept as running sums, so each update is O(1).
/// A child's counted fraction never goes down; when all weights are 0 children count equally.
struct WeightedAggregate {
    /// Changes smaller than this are not reported: without it, one step of a 100,000-link
    /// `then` chain would ripple a vanishing change up through every enclosing link.
    static let minimumStep = 1e-7

    private(set) var weights: [Double]
    private(set) var counted: [Double]
    private var sumW = 0.0
    private var sumWF = 0.0
    private var equal = false
    private(set) var reported = 0.0

    init(weights: [Double]) {
        self.weights = weights
        counted = Array(repeating: 0, count: weights.count)
        resum()
    }

    private mutating func resum() {
        equal = !weights.contains { $0 > 0 }
        sumW = 0
        sumWF = 0
        for i in weights.indices {
            let w = equal ? 1 : weights[i]
            sumW += w
            sumWF += w * counted[i]
        }
    }

    var value: Double { sumW > 0 ? min(1, sumWF / sumW) : 1 }

    mutating func setWeights(_ w: [Double]) {
        weights = w
        resum()
    }

    /// Counts `fraction` for child `i` (never less than before).
    mutating func set(_ i: Int, _ fraction: Double) {
        guard fraction > counted[i] else { return }
        let w = equal ? 1 : weights[i]
        sumWF += w * (fraction - counted[i])
        counted[i] = fraction
    }

    /// The value to report now, if it moved up enough since the last report.
    mutating func takeReport() -> Double? {
        let v = value
        guard v > reported, v - reported >= Self.minimumStep || v >= 1 else { return nil }
        reported = v
        return v
    }
}

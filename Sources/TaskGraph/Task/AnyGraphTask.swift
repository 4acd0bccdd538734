internal import CTaskGraphRuntime
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What every task has, whatever its result types: identity, state, weight, progress,
/// cancellation, and its place in the graph. `GraphTask` is the typed task; use
/// `AnyGraphTask` to keep tasks of different types together.
///
/// All mutable state is guarded by the lock of the task's stripe of the graph (`Stripe`),
/// the same lock that guards its record, so a transition and its record are one atomic
/// step. User code (bodies, handlers) never runs with that lock held.
public class AnyGraphTask: @unchecked Sendable {
    // The stored properties are declared in an order that packs them (a task is allocated
    // per call; W4 counts its bytes): words first, then the handler list (29 bytes), the
    // body or driver (17), and the small fields in their tail padding (a field goes at the
    // previous one's size, not its stride): 184 bytes, so that `GraphTask`'s one field ends
    // at 200 (a 208-byte malloc chunk; `TaskLayoutTests`). Rare state lives in `_extras`.

    /// The graph this task is a node of.
    public let graph: Graph
    /// The name the dashboard shows.
    public let name: String
    /// This task's node in the graph.
    public var id: NodeID { NodeID(rawID) }
    @exclusivity(unchecked) @usableFromInline var rawID = 0
    /// The slot of this task's record in its stripe (`Stripe`).
    @exclusivity(unchecked) @usableFromInline var slot = 0

    // Guarded by the stripe's lock.
    @exclusivity(unchecked) @usableFromInline var _weight: Double
    /// The fraction of `_progress` (its info, rare, lives in `_extras`).
    @exclusivity(unchecked) @usableFromInline var _fraction: Double = 0
    /// The link to the parent (see `_parent`): an unowned reference, which keeps the parent's
    /// memory allocated (not the parent) while this task lives, so the pointer in it can always
    /// be tried. Not `weak`: the first weak reference to an object gives it a side table for
    /// good, and from then on every retain and release of it takes the runtime's slow path
    /// (profiled: ~23 % of W2's instructions); an unowned count is kept inline.
    @exclusivity(unchecked) @usableFromInline var _parentLink: ParentLink?
    /// Rare state (cancel handlers, a caller's cancel source, sharing, progress info); made
    /// on first use.
    @exclusivity(unchecked) @usableFromInline var _extras: TaskExtras?
    /// A `GraphTask`'s outcome once completed (a `Result<Success, Failure>`). Stored here,
    /// untyped, so that freeing a task destroys it through the existential's own type and
    /// needs no generic metadata lookup (a typed generic field costs two per task).
    @exclusivity(unchecked) @usableFromInline var _outcome: Any?
    /// Handlers in registration order, type-erased (see `HandlerEntry`).
    @exclusivity(unchecked) @usableFromInline var handlers = HandlerList()
    @usableFromInline let kindIndex: UInt8
    @exclusivity(unchecked) @usableFromInline var _state: TaskState = .notExecuted
    @exclusivity(unchecked) @usableFromInline var _failed = false
    /// A leaf's body or a composite's driver (`body`, `driver`): a task has one or the other,
    /// so they share a field (17 bytes, whose tag byte's neighbours are the small fields).
    @exclusivity(unchecked) @usableFromInline var _role: Role
    @exclusivity(unchecked) @usableFromInline var _adopted = false
    /// Completed, and the settling thread is still calling the handlers registered before:
    /// a handler added meanwhile, from any thread, goes in `handlers` and is called after
    /// them (`GraphTask.deliverLate`), so registration order holds per queue (A+ 2.2.6).
    @exclusivity(unchecked) @usableFromInline var _delivering = false
    /// The cancel source as an index into `CommonCancelSource.table` + 1 (0: none, or a caller's
    /// own label, kept in `_extras`).
    @exclusivity(unchecked) @usableFromInline var _cancelCode: UInt8 = 0
    /// The index of the stripe whose lock guards this task (at most 1,024 stripes); changes
    /// only when an adoption moves the task to its parent's stripe (both locks held), so
    /// lockers check it again after locking (`lockStripe`).
    @usableFromInline let _stripe: Atomic<UInt16>
    @exclusivity(unchecked) @usableFromInline var _index32: Int32 = 0
    /// How many of this task's handlers run before its parent learns that it settled: the
    /// parent takes its turn among them from the moment it waits for this task (A+ order).
    @exclusivity(unchecked) @usableFromInline var _parentTurn32 = Int32.max

    /// `_stripe` as an index into the graph's stripes (a relaxed load).
    @inlinable @inline(__always)
    final var stripeIndex: Int { Int(_stripe.load(ordering: .relaxed)) }

    /// `_stripe` as an index, loaded with acquiring ordering (before locking that stripe).
    @inlinable @inline(__always)
    final var stripeIndexAcquiring: Int { Int(_stripe.load(ordering: .acquiring)) }

    @usableFromInline
    enum Role {
        case none
        /// A leaf's work, type-erased: made by `GraphTask`'s initializers (inlined into the
        /// caller, so specialized); it gets this task and settles it.
        case leaf(@Sendable (AnyGraphTask) -> Void)
        /// How a composite drives its subtasks.
        case composite(CompositeDriver)
    }

    /// How a composite drives its subtasks; nil for leaves and once settled.
    @inlinable var driver: CompositeDriver? {
        get {
            if case .composite(let d) = _role { return d }
            return nil
        }
        set {
            if let newValue {
                _role = .composite(newValue)
            } else if case .composite = _role {
                _role = .none
            }
        }
    }

    /// A leaf's work (see `Role.leaf`); nil for composites and once started.
    @inlinable var body: (@Sendable (AnyGraphTask) -> Void)? {
        get {
            if case .leaf(let b) = _role { return b }
            return nil
        }
        set {
            if let newValue {
                _role = .leaf(newValue)
            } else if case .leaf = _role {
                _role = .none
            }
        }
    }

    /// What the node is (`NodeKind`).
    public var kind: String { NodeKind.all[Int(kindIndex)] }

    /// The parent (a composite that adopted this task), or nil when there is none or it is
    /// being freed: what a `weak` reference would give, without the side table. Set once, on
    /// adoption (stripe locked).
    @usableFromInline final var _parent: AnyGraphTask? {
        get {
            // The link's bits are the parent's address (`ParentLink`); read in place, because
            // loading the unowned reference itself traps once the parent's deinit started.
            let raw = withUnsafeBytes(of: &_parentLink) { $0.load(as: UnsafeMutableRawPointer?.self) }
            guard let raw, let p = swift_tryRetain(raw) else { return nil }
            return Unmanaged<AnyGraphTask>.fromOpaque(p).takeRetainedValue()
        }
        set { _parentLink = newValue.map(ParentLink.init) }
    }

    /// This task's index among its parent's subtasks.
    @inlinable var _index: Int {
        get { Int(_index32) }
        set { _index32 = Int32(truncatingIfNeeded: newValue) }
    }

    @inlinable var _parentTurn: Int {
        get { _parentTurn32 == .max ? .max : Int(_parentTurn32) }
        set { _parentTurn32 = newValue >= Int(Int32.max) ? .max : Int32(newValue) }
    }

    /// The task's own progress (stripe locked).
    @inlinable var _progress: TaskProgress {
        get { TaskProgress(_fraction, info: _extras?.info) }
        set {
            _fraction = newValue.fraction
            if newValue.info != nil || _extras?.info != nil { extras.info = newValue.info }
        }
    }

    /// `_extras`, made if needed (stripe locked).
    @usableFromInline var extras: TaskExtras {
        if let e = _extras { return e }
        let e = TaskExtras()
        _extras = e
        return e
    }

    /// A shared task's record of its ref nodes, once it has any; on a ref node, the same record
    /// of the task it stands for (see `SharedTask`).
    var _sharing: SharedTask? {
        get { _extras?.sharing }
        set { if newValue != nil || _extras != nil { extras.sharing = newValue } }
    }

    /// The handlers `onCancel` registered.
    var _cancelHandlers: [@Sendable () -> Void] {
        _extras?.cancelHandlers ?? []
    }

    /// Takes the `onCancel` handlers out (stripe locked).
    @usableFromInline final func takeCancelHandlersLocked() -> [@Sendable () -> Void] {
        assertStripeLocked()
        guard let e = _extras, !e.cancelHandlers.isEmpty else { return [] }
        var h: [@Sendable () -> Void] = []
        swap(&h, &e.cancelHandlers)
        return h
    }

    /// The source of the cancel that moved the task to `cancelled` (stripe locked).
    var _cancelSource: String? {
        get {
            if _cancelCode > 0 { return CommonCancelSource.table[Int(_cancelCode) - 1] }
            return _extras?.cancelSource
        }
        set {
            if let newValue, let i = CommonCancelSource.table.firstIndex(of: newValue) {
                _cancelCode = UInt8(i + 1)
            } else {
                _cancelCode = 0
                if newValue != nil || _extras != nil { extras.cancelSource = newValue }
            }
        }
    }

    /// Takes the handler list out, leaving it empty (stripe locked).
    @inlinable @inline(__always)
    final func takeHandlersLocked() -> HandlerList {
        assertStripeLocked()
        var list = HandlerList()
        swap(&list, &handlers)
        return list
    }

    @usableFromInline
    init(
        graph: Graph, kindIndex: UInt8, name: String?, body: (@Sendable (AnyGraphTask) -> Void)?,
        weight: Double = 1, parent: AnyGraphTask? = nil, index: Int = 0, executing: Bool = false,
        driver: CompositeDriver? = nil
    ) {
        self.graph = graph
        if let body {
            self._role = .leaf(body)
        } else if let driver {
            self._role = .composite(driver)
        } else {
            self._role = .none
        }
        self.name = name.map(Graph.cut) ?? NodeKind.all[Int(kindIndex)]
        self._weight = weight
        self.kindIndex = kindIndex
        // A child joins its parent's stripe, a root the calling thread's.
        let u: Unmanaged<Stripe>
        if let parent {
            u = parent.lockStripeUnretained()
        } else {
            u = graph.currentStripe
            u.mutex.lock()
            graph.admitRootLocked(u)
        }
        _stripe = Atomic(UInt16(u.with { $0.index }))
        (rawID, slot) = u.with {
            graph.addNodeLocked(
                $0, kindIndex: kindIndex, name: self.name, weight: weight,
                parentSlot: parent?.slot, index: index)
        }
        if let parent {
            _parent = parent
            _index = index
            _adopted = true
        }
        if executing {
            _state = .executing
            _ = u.with { graph.setStateLocked($0, slot, .executing, retain: self) }
        }
        u.unlock()
    }

    /// A scope's (or span's) node, executing, with `driver` to keep its children: made child
    /// of `parent` when that is a running task of `graph` that can keep scope children, in one
    /// turn of its stripe lock (the parent's reservation, the node and the parent's count
    /// together), else a root. Tells the parent its new progress after unlocking.
    init(
        scopeOf parent: AnyGraphTask?, graph: Graph, kindIndex: UInt8, name: String, weight: Double,
        driver: ScopeDriver
    ) {
        self.graph = graph
        self._role = .composite(driver)
        self.name = Graph.cut(name)
        self._weight = weight
        self.kindIndex = kindIndex
        var u: Unmanaged<Stripe>
        var joined: (parent: AnyGraphTask, driver: ScopeDriver, index: Int)?
        if let parent, parent.graph === graph {
            u = parent.lockStripeUnretained()
            if let d = parent.scopeDriverLocked() {
                joined = (parent, d, d.reserveLocked())
            } else {
                u.unlock()
                u = graph.currentStripe
                u.mutex.lock()
                graph.admitRootLocked(u)
            }
        } else {
            u = graph.currentStripe
            u.mutex.lock()
            graph.admitRootLocked(u)
        }
        _stripe = Atomic(UInt16(u.with { $0.index }))
        let index = joined?.index ?? 0
        (rawID, slot) = u.with {
            graph.addNodeLocked(
                $0, kindIndex: kindIndex, name: self.name, weight: weight,
                parentSlot: joined?.parent.slot, index: index)
        }
        if let joined {
            _parent = joined.parent
            _index = index
            _adopted = true
        }
        _state = .executing
        _ = u.with { graph.setStateLocked($0, slot, .executing, retain: self) }
        let report = joined.flatMap { $0.driver.addLocked(self, index: index, owner: $0.parent) }
        u.unlock()
        if let report, let parent = joined?.parent { Trampoline.enter { report.deliver(parent) } }
    }

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

    deinit {
        // A never-run chain of composites would otherwise be released recursively: the pool
        // takes the only reference to the driver and releases it iteratively.
        if driver != nil {
            ReleasePool.hold(&driver)
            ReleasePool.drain()
        }
    }

    // MARK: - Reading

    /// The current state; reflects every transition before the call.
    public var state: TaskState {
        resolvePendingCancel()
        return withStripe { _ in _state }
    }

    /// Whether the task was cancelled.
    public var isCancelled: Bool {
        resolvePendingCancel()
        return withStripe { _ in _state == .cancelled }
    }

    /// Once the task is cancelled, the source of the cancel that moved it there (`api`,
    /// `graph`, `parent`, `child`, `timeout`, `failFast`, or a caller's label such as
    /// `keyboard`); nil while it is not cancelled. Useful after `await task.value` threw
    /// `CancellationError`.
    public var cancelSource: String? {
        resolvePendingCancel()
        return withStripe { _ in _state == .cancelled ? _cancelSource : nil }
    }

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

    /// The task's own progress (for composites: the weighted aggregate of its subtasks).
    public var currentProgress: TaskProgress {
        withStripe { _ in
            driver?.recordPendingLocked(owner: self)
            return _progress
        }
    }

    /// How much this task counts in its parent's aggregated progress: finite and >= 0,
    /// default 1; 0 means it does not count.
    public var weight: Double {
        get { withStripe { _ in _weight } }
        set { setWeight(newValue) }
    }

    /// Sets `weight` and returns the task, for chaining.
    @discardableResult
    public func setWeight(_ w: Double) -> Self {
        precondition(w.isFinite && w >= 0, "GraphTask weight must be finite and >= 0, got \(w)")
        let parent: AnyGraphTask? = withStripe { s in
            guard _weight != w else { return nil }
            _weight = w
            graph.setWeightLocked(s, slot, w)
            return _parent.flatMap { $0._state == .executing ? $0 : nil }
        }
        if let parent { Trampoline.enter { parent.lockedDriver()?.weightsChanged(owner: parent) } }
        return self
    }

    // MARK: - Executing

    /// Starts the task; a second call, or a call on a settled task, does nothing. A root runs
    /// its body on the calling thread.
    @discardableResult
    public func execute() -> Self {
        if _slowPath(graph.scopesMade.load(ordering: .relaxed)) { joinCurrentScope() }
        Trampoline.enter { startIfNeeded() }
        return self
    }

    /// Runs the body (leaves) or starts the subtasks (composites), once.
    @usableFromInline
    func startIfNeeded() {
        resolvePendingCancel()
        let u = lockStripeUnretained()
        guard _state == .notExecuted else {
            u.unlock()
            return
        }
        _state = .executing
        _ = u.with { graph.setStateLocked($0, slot, .executing, retain: self) }
        let b = body
        let d = driver
        body = nil
        if let d { for c in d.children { c._parentTurn = c.handlers.count } }
        u.unlock()
        if let d {
            d.start(owner: self)
        } else if let b {
            b(self)
        }
    }

    // MARK: - Cancelling

    /// Cancels the task: an unsettled task moves to `cancelled`, its executing subtasks are
    /// cancelled, its not-executed ones never run, and (api.md "Upward") a parent that
    /// cannot finish without it is cancelled too. Cancelling a settled task does nothing.
    public func cancel() {
        cancel(source: CancelSource.api)
    }

    /// Cancels with `source` recorded, as a cancel from outside the task's parent.
    public func cancel(source: String) {
        Trampoline.enter { cancel(source: source, byParent: false) }
    }

    /// Runs `handler` once if the task is cancelled (at once if it already is).
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Self {
        resolvePendingCancel()
        let now: Bool = withStripe { _ in
            switch _state {
            case .cancelled: return true
            case .completed: return false
            default:
                extras.cancelHandlers.append(handler)
                return false
            }
        }
        if now { handler() }
        return self
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
        e.notice?.ownerCancelled()
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

    // MARK: - Copies (retry)

    /// Makes fresh copies of this task (same closures, same structure, same weight; no
    /// handlers), if it has not run yet; the copy (leaf or composite) takes the name given to
    /// the copier (nil: the same name), its subtasks keep theirs. Nil for `pending` tasks and tasks that already started: `retry` then
    /// makes one attempt.
    @usableFromInline
    func makeCopier() -> ((_ name: String?) -> AnyGraphTask)? {
        let (b, work, d, state, w) = withStripe { _ in
            (body, _state == .notExecuted ? workLocked() : nil, driver, _state, _weight)
        }
        guard state == .notExecuted else { return nil }
        let copy: (String?) -> AnyGraphTask
        if let d {
            guard d.canRemake else { return nil }
            let copiers = d.children.map { $0.makeCopier() }
            guard !copiers.contains(where: { $0 == nil }) else { return nil }
            copy = { d.remake(copiers.map { $0!(nil) }, name: $0)! }
        } else if let b {
            let leaf = leafCopier(body: b, work: work)
            copy = { leaf($0 ?? self.name) }
        } else {
            return nil
        }
        return {
            let t = copy($0)
            if w != 1 { t.setWeight(w) }
            return t
        }
    }

    /// A leaf of the same type with the same body and work (`workLocked()`). Overridden by
    /// `GraphTask`.
    func leafCopier(body: @escaping @Sendable (AnyGraphTask) -> Void, work: Any?) -> (_ name: String) -> AnyGraphTask {
        preconditionFailure("leafCopier is overridden")
    }

    /// The closure a leaf made by `GraphTask.init(name:graph:queue:_:)` keeps beside its body
    /// (`GraphTask._work`), boxed; nil for every other task. Overridden by `GraphTask`.
    func workLocked() -> Any? {
        assertStripeLocked()
        return nil
    }

    /// Takes `workLocked()` out of the task (it is cancelled before it ran), to be released
    /// after unlocking. Overridden by `GraphTask`.
    func takeWorkLocked() -> Any? {
        assertStripeLocked()
        return nil
    }

    /// A `ref` node of the same type standing for this task, as subtask `index` of `parent`
    /// (see `SharedTask`). Overridden by `GraphTask`.
    func makeRef(parent: AnyGraphTask?, index: Int) -> AnyGraphTask {
        preconditionFailure("makeRef is overridden")
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

/// A task's link to its parent (`AnyGraphTask._parentLink`). An unowned reference to a native
/// Swift object is stored as the object's address, and an optional one is one word with nil
/// as zero (`ParentLinkTests` checks both), so `_parent` reads the address in place.
@usableFromInline
struct ParentLink {
    unowned(safe) let task: AnyGraphTask

    init(_ task: AnyGraphTask) { self.task = task }
}

/// The cancel sources a task stores as a one-byte code (`AnyGraphTask._cancelCode`); others
/// (a caller's own label) go to its `TaskExtras`.
enum CommonCancelSource {
    static let table = [
        CancelSource.api, CancelSource.graph, CancelSource.parent, CancelSource.child,
        CancelSource.timeout, CancelSource.failFast, CancelSource.resolverReleased, CancelSource.task,
    ]
}

/// A task's rare state, made on first use so that the common task carries one word for it.
/// Guarded by the task's stripe lock.
@usableFromInline
final class TaskExtras {
    var cancelHandlers: [@Sendable () -> Void] = []
    var cancelSource: String?
    var sharing: SharedTask?
    @usableFromInline var info: String?

    @usableFromInline init() {}
}

/// Cancel sources that travel through the trampoline as small integers.
enum CancelSourceCode {
    static let table = [
        CancelSource.parent, CancelSource.failFast, CancelSource.timeout,
        CancelSource.child, CancelSource.api,
    ]
    static func code(for source: String) -> Int { table.firstIndex(of: source) ?? 0 }
    static func source(for code: Int) -> String { table.indices.contains(code) ? table[code] : CancelSource.parent }
}

extension Array where Element: AnyGraphTask {
    /// The same array as `[AnyGraphTask]`, without the element-by-element copy an implicit
    /// upcast makes on Linux (`_arrayForceCast`: a new array, and a retain and a release per
    /// task). An array of class references has one layout whatever the class; the standard
    /// library's own `_ContiguousArrayBuffer.cast(toBufferOf:)` relies on the same.
    @inlinable var asAnyTasks: [AnyGraphTask] {
        unsafeBitCast(self, to: [AnyGraphTask].self)
    }
}

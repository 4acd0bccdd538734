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
    /// cancelled, its not-executed ones never run, and (Cancelling, "Upward") a parent that
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

import Dispatch

/// Drives `then`, `recover` and `chain`: a first link, then maybe a second one (given up
/// front, or made by a closure from the first link's outcome). Both links count in the
/// owner's progress like a two-step `sequential`; a skipped second link counts 1.
///
/// Everything typed comes through one closure made in the (specialized) constructor, so a
/// link costs one closure context and no arrays beyond its two children.
///
/// Not final only for `QueuedLinkDriver` (a link whose closure runs on a queue).
@usableFromInline
class LinkDriver: CompositeDriver, @unchecked Sendable {
    /// What `typed` is asked to do.
    @usableFromInline
    enum Op {
        /// From the completed first link (`a`): the second link to run, or nil to settle the
        /// owner from the first link (then after a failure, recover after a success). May
        /// call user code; never called under the lock.
        case decide
        /// Settle the owner from the first link (`a`).
        case finishFromFirst
        /// Settle the owner from the second link (`a`).
        case finishFromSecond
        /// A fresh composite over copies of the links (`a`, and `b` when given up front),
        /// named as given (nil: the same name), its closure on `queue` when given.
        case remake(name: String?, queue: DispatchQueue?)
    }

    @usableFromInline
    typealias Typed = (_ op: Op, _ owner: AnyGraphTask?, _ a: AnyGraphTask, _ b: AnyGraphTask?) -> AnyGraphTask?

    let typed: Typed

    // Guarded by the owner's stripe lock.
    @exclusivity(unchecked) private final var phase = 0 // 0: first link, 1: second link, 2: over
    @exclusivity(unchecked) private final var progress = PairAggregate()

    @usableFromInline
    init(first: AnyGraphTask, second: AnyGraphTask?, typed: @escaping Typed) {
        self.typed = typed
        var children = [AnyGraphTask]()
        children.reserveCapacity(2)
        children.append(first)
        if let second { children.append(second) }
        super.init(children: children)
    }

    override func adoptChildrenLocked(owner: AnyGraphTask) {
        owner.assertStripeLocked()
        super.adoptChildrenLocked(owner: owner)
        progress.w0 = children[0]._weight
        if children.count > 1 { progress.w1 = children[1]._weight }
    }

    /// The queue the link's closure runs on (`QueuedLinkDriver`); nil: the settling thread.
    var queue: DispatchQueue? { nil }

    override var canRemake: Bool { true }

    override func remake(_ copies: [AnyGraphTask], name: String?) -> AnyGraphTask? {
        typed(.remake(name: name, queue: queue), nil, copies[0], copies.count > 1 ? copies[1] : nil)
    }

    @usableFromInline override func start(owner: AnyGraphTask) {
        step(owner: owner)
    }

    override func turnLocked() -> Int? {
        assertSomeLockHeld()
        return phase < 2 && phase < children.count ? phase : nil
    }

    override func completedLocked(owner: AnyGraphTask, index: Int) -> AfterCompleted {
        owner.assertStripeLocked()
        if index == 0 {
            progress.c0 = 1
            return .next
        }
        phase = 2
        return .finish
    }

    override func finish(owner: AnyGraphTask, from child: AnyGraphTask) {
        _ = typed(.finishFromSecond, owner, child, nil)
    }

    /// The first link completed: settle the owner from it, or run the second link (given up
    /// front, or made by the closure from the first link's outcome).
    override func next(owner: AnyGraphTask, after first: AnyGraphTask, index: Int) {
        guard let made = typed(.decide, owner, first, nil) else {
            let go: Bool = owner.withStripe { _ in
                guard phase == 0 else { return false }
                phase = 2
                return true
            }
            if go { _ = typed(.finishFromFirst, owner, first, nil) }
            return
        }
        // Usually adopted, counted and started with one lock.
        enum Fast {
            case slow
            case done(ProgressReport?, start: AnyGraphTask?)
        }
        let fast: Fast = owner.withStripe { s in
            guard adoptMadeLocked(made, owner: owner, index: 1, s) else { return .slow }
            guard phase == 0, owner._state == .executing else { return .done(nil, start: nil) }
            phase = 1
            children.append(made)
            progress.w1 = made._weight
            let report = progress.takeReport().map { recordLocked(owner: owner, $0) }
            return .done(report, start: made._state == .notExecuted ? made : nil)
        }
        if case .done(let report, let start) = fast {
            report?.deliver(owner)
            if let start { begin(start) } else { step(owner: owner) }
            return
        }
        let second = adoptMade(made, owner: owner, index: 1)
        let report: ProgressReport? = owner.withStripe { _ in
            guard phase == 0, owner._state == .executing else { return nil }
            phase = 1
            if let second, children.count < 2 {
                children.append(second)
                progress.w1 = second._weight
            }
            guard let v = progress.takeReport() else { return nil }
            return recordLocked(owner: owner, v)
        }
        report?.deliver(owner)
        step(owner: owner)
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        step(owner: owner, settled: index)
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let report: ProgressReport? = owner.withStripe { _ in
            guard owner._state == .executing, index == phase, phase < 2 else { return nil }
            let f = children[index]._progress.fraction
            if index == 0 { progress.c0 = max(progress.c0, f) } else { progress.c1 = max(progress.c1, f) }
            guard let v = progress.takeReport() else { return nil }
            return recordLocked(owner: owner, v)
        }
        report?.deliver(owner)
    }

    override func weightsChanged(owner: AnyGraphTask) {
        owner.withStripe { _ in
            progress.w0 = children[0]._weight
            if children.count > 1 { progress.w1 = children[1]._weight }
        }
    }
}

/// The weighted aggregate of two links (see `WeightedAggregate`), without arrays.
struct PairAggregate {
    var w0 = 1.0, w1 = 1.0
    var c0 = 0.0, c1 = 0.0
    var reported = 0.0

    var value: Double {
        let (a, b) = w0 > 0 || w1 > 0 ? (w0, w1) : (1, 1)
        return min(1, (a * c0 + b * c1) / (a + b))
    }

    mutating func takeReport() -> Double? {
        let v = value
        guard v > reported, v - reported >= WeightedAggregate.minimumStep || v >= 1 else { return nil }
        reported = v
        return v
    }
}

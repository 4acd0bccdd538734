/// How a composite task drives its subtasks. The owner task holds its driver until it
/// settles; the driver holds the subtasks. Driver state is guarded by the graph's lock, and
/// driver methods are called without the lock held (they take it as needed).
@usableFromInline
class CompositeDriver: @unchecked Sendable {   // state guarded by the graph's lock
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
        // pool takes the only references to the children.
        ReleasePool.hold(&children)
        ReleasePool.drain()
    }


    /// Children another composite adopted first: `install` puts ref nodes in their place.
    @exclusivity(unchecked) var sharedIndices: [Int] = []

    /// Adopts every child not adopted yet (lock held), noting the others in `sharedIndices`.
    /// Call once, right after the owner exists.
    func adoptChildrenLocked(owner: AnyGraphTask) {
        for (i, c) in children.enumerated() {
            if c._adopted { sharedIndices.append(i) } else { c.adoptLocked(by: owner, index: i) }
        }
    }

    @usableFromInline func start(owner: AnyGraphTask) {}
    func childSettled(owner: AnyGraphTask, index: Int) {}
    func childProgress(owner: AnyGraphTask, index: Int) {}
    /// A subtask was cancelled from outside: by default the owner cannot finish without it.
    func childCancelled(owner: AnyGraphTask, index: Int) {
        owner.cancel(source: CancelSource.child, byParent: false)
    }
    func weightsChanged(owner: AnyGraphTask) {}

    /// The subtasks to cancel when the owner is cancelled (lock held).
    func executingChildrenLocked() -> [AnyGraphTask] {
        children.filter { $0._state == .executing }
    }

    /// Records an aggregate the owner reports (lock held); returns what to pass on.
    func recordLocked(owner: AnyGraphTask, _ fraction: Double) -> (TaskProgress, AnyGraphTask?, Int) {
        let p = TaskProgress(fraction)
        let parent = owner.recordProgressLocked(p)
        return (p, parent, owner._index)
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

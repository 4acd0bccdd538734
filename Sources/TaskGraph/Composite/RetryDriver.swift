/// Drives `retry`: up to `attempts` attempts, each a child of the retry node. The first
/// attempt is the receiver; later ones are fresh copies made by `copier` (leaf or
/// composite, its subtasks keeping their names) named "NAME (attempt k/N)" after the first
/// attempt's name. The owner reports the current
/// attempt's progress, never going down.
@usableFromInline
final class RetryDriver: CompositeDriver, @unchecked Sendable {
    let attempts: Int
    /// Makes a fresh copy of the first attempt; nil when it cannot be copied (a `pending`
    /// task): then there is one attempt.
    let copier: ((_ name: String?) -> AnyGraphTask)?
    /// Settles the owner from a completed attempt.
    let finish: (AnyGraphTask, AnyGraphTask) -> Void

    // Guarded by the owner's stripe lock.
    @exclusivity(unchecked) private var current = 0
    @exclusivity(unchecked) private var over = false
    @exclusivity(unchecked) private var best = 0.0

    @usableFromInline
    init(
        first: AnyGraphTask, attempts: Int,
        copier: ((_ name: String?) -> AnyGraphTask)?,
        finish: @escaping (AnyGraphTask, AnyGraphTask) -> Void
    ) {
        self.attempts = max(1, attempts)
        self.copier = copier
        self.finish = finish
        super.init(children: [first])
    }

    @usableFromInline override func start(owner: AnyGraphTask) {
        step(owner: owner)
    }

    override func turnLocked() -> Int? {
        assertSomeLockHeld()
        return over ? nil : current
    }

    override func completedLocked(owner: AnyGraphTask, index: Int) -> AfterCompleted {
        owner.assertStripeLocked()
        if children[index]._failed && index + 1 < attempts && copier != nil {
            current += 1
            return .next
        }
        over = true
        return .finish
    }

    override func finish(owner: AnyGraphTask, from child: AnyGraphTask) {
        finish(owner, child)
    }

    /// The attempt failed and attempts are left: a fresh copy runs next.
    override func next(owner: AnyGraphTask, after child: AnyGraphTask, index: Int) {
        let attempt = copier!(Self.attemptName(children[0].name, index + 2, of: attempts))
        if let held = adoptMade(attempt, owner: owner, index: index + 1) {
            owner.withStripe { _ in children.append(held) }
        }
        step(owner: owner)
    }

    /// "NAME (attempt k/N)"; NAME is the first attempt's name without its own
    /// " (attempt 1/N)" (taskview's scenarios name the first attempt so).
    static func attemptName(_ first: String, _ k: Int, of n: Int) -> String {
        let suffix = " (attempt 1/\(n))"
        let base = first.hasSuffix(suffix) ? String(first.dropLast(suffix.count)) : first
        return "\(base) (attempt \(k)/\(n))"
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        step(owner: owner, settled: index)
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let report: ProgressReport? = owner.withStripe { _ in
            guard !over, owner._state == .executing, index == current else { return nil }
            let p = children[index]._progress
            guard p.fraction >= best, p != owner._progress else { return nil }
            best = p.fraction
            return recordLocked(owner: owner, p)
        }
        report?.deliver(owner)
    }
}

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
    init(first: AnyGraphTask, attempts: Int,
         copier: ((_ name: String?) -> AnyGraphTask)?,
         finish: @escaping (AnyGraphTask, AnyGraphTask) -> Void) {
        self.attempts = max(1, attempts)
        self.copier = copier
        self.finish = finish
        super.init(children: [first])
    }

    @usableFromInline override func start(owner: AnyGraphTask) {
        step(owner: owner)
    }

    private func step(owner: AnyGraphTask) {
        enum Next { case none, start(AnyGraphTask), finish(AnyGraphTask), again(Int), cancel }
        let next: Next = owner.withStripe { _ in
            guard !over, owner._state == .executing else { return .none }
            let c = children[current]
            switch c._state {
            case .notExecuted: return .start(c)
            case .executing: return .none
            case .cancelled: return .cancel
            case .completed:
                if c._failed && current + 1 < attempts && copier != nil {
                    current += 1
                    return .again(current)
                }
                over = true
                return .finish(c)
            }
        }
        switch next {
        case .none: break
        case .start(let c): Trampoline.run(c, .start)
        case .cancel: owner.cancel(source: CancelSource.child, byParent: false)
        case .finish(let c): finish(owner, c)
        case .again(let index):
            let attempt = copier!(Self.attemptName(children[0].name, index + 1, of: attempts))
            owner.withFamily([attempt]) {
                attempt.adoptLocked(by: owner, index: index)
                children.append(attempt)
            }
            step(owner: owner)
        }
    }

    /// "NAME (attempt k/N)"; NAME is the first attempt's name without its own
    /// " (attempt 1/N)" (taskview's scenarios name the first attempt so).
    static func attemptName(_ first: String, _ k: Int, of n: Int) -> String {
        let suffix = " (attempt 1/\(n))"
        let base = first.hasSuffix(suffix) ? String(first.dropLast(suffix.count)) : first
        return "\(base) (attempt \(k)/\(n))"
    }

    override func childSettled(owner: AnyGraphTask, index: Int) {
        let isCurrent: Bool = owner.withStripe { _ in index == current }
        if isCurrent { step(owner: owner) }
    }

    override func childProgress(owner: AnyGraphTask, index: Int) {
        let report: (TaskProgress, AnyGraphTask?, Int)? = owner.withStripe { _ in
            guard !over, owner._state == .executing, index == current else { return nil }
            let p = children[index]._progress
            guard p.fraction >= best, p != owner._progress else { return nil }
            best = p.fraction
            return (p, owner.recordProgressLocked(p), owner._index)
        }
        if let (p, parent, i) = report { owner.didReportProgress(p, parent: parent, index: i) }
    }
}

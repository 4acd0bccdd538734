import Dispatch

/// A `map*` adapter made with `on queue:` (`mapResult(name:on:_:)`, ...): once the inner task
/// completes, its closure runs on `hop`, and the adapter settles there. The hop is queued at
/// the moment the adapter learns of the outcome, which is its turn among the inner task's
/// handlers (TasksAndTheirRules, "Handlers"), so it keeps its place among that queue's
/// handlers, in registration order. Only adapters given a queue have this driver: the
/// others pay nothing for it.
@usableFromInline
final class QueuedAdapterDriver: AdapterDriver, @unchecked Sendable {
    let hop: DispatchQueue

    /// The same adapter as `plain` (made, not installed yet), its closure on `queue`.
    @usableFromInline
    init(queue: DispatchQueue, from plain: AdapterDriver) {
        hop = queue
        super.init(inner: plain.inner, mapProgress: plain.mapProgress, typed: plain.typed)
    }

    override var queue: DispatchQueue? { hop }

    override func finish(owner: AnyGraphTask, from child: AnyGraphTask) {
        hop.async {
            Trampoline.enter {
                // Cancelled meanwhile: the closure is not called.
                guard owner.withStripe({ _ in owner._state == .executing }) else { return }
                super.finish(owner: owner, from: child)
            }
        }
    }
}

/// A `then`/`recover`/`chain` made with `on queue:`: once the first link completes, the rest
/// of the step (deciding, calling the closure, starting the task it returns, or settling
/// from the first link) runs on `hop`, queued at the link's turn among the first link's
/// handlers (see `QueuedAdapterDriver`).
@usableFromInline
final class QueuedLinkDriver: LinkDriver, @unchecked Sendable {
    let hop: DispatchQueue

    /// The same link as `plain` (made, not installed yet), its closure on `queue`.
    @usableFromInline
    init(queue: DispatchQueue, from plain: LinkDriver) {
        hop = queue
        let c = plain.children
        super.init(first: c[0], second: c.count > 1 ? c[1] : nil, typed: plain.typed)
    }

    override var queue: DispatchQueue? { hop }

    override func next(owner: AnyGraphTask, after first: AnyGraphTask, index: Int) {
        hop.async {
            Trampoline.enter {
                // Cancelled meanwhile: the closure is not called.
                guard owner.withStripe({ _ in owner._state == .executing }) else { return }
                super.next(owner: owner, after: first, index: index)
            }
        }
    }
}

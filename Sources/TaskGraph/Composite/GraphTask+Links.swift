import Dispatch

/// `then`, `recover` and `chain`: a composite of two links, parent of both in the graph.
extension GraphTask {
    /// Runs `next` after this task succeeds; fails with this task's error otherwise (and
    /// `next` never runs).
    @inlinable
    public func then<S2>(_ next: GraphTask<S2, Failure>, name: String? = nil) -> GraphTask<S2, Failure> {
        link(
            kindIndex: KindIndex.then, name: name, second: next,
            direct: { r in r.failureOnly() }, make: { _ in next })
    }

    /// Runs the task `make` returns from this task's value, after this task succeeds.
    ///
    /// With a `queue`, `make` runs on that queue (the task it returns starts there), taking
    /// its turn among that queue's handlers of this task in registration order, like
    /// PromiseKit's `then(on:)`: `t.success(on: q) {h1}; t.then(on: q) {...}.execute();
    /// t.success(on: q) {h3}` runs h1, the closure, then h3 on `q`. Its turn is taken when
    /// it is executed. After a failure the closure is not called, and the task fails on
    /// that queue too. Without a queue, `make` runs on the thread that settles this task.
    @inlinable
    public func then<S2>(
        name: String? = nil, on queue: DispatchQueue? = nil,
        _ make: @escaping @Sendable (Success) -> GraphTask<S2, Failure>
    ) -> GraphTask<S2, Failure> {
        link(
            kindIndex: KindIndex.then, name: name, queue: queue, second: nil,
            direct: { r in r.failureOnly() },
            make: { r in
                guard case .success(let v) = r else { preconditionFailure("then: no value") }
                return make(v)
            })
    }

    /// Runs `other` if this task fails; succeeds with this task's value otherwise.
    @inlinable
    public func recover<F2>(_ other: GraphTask<Success, F2>, name: String? = nil) -> GraphTask<Success, F2> {
        link(
            kindIndex: KindIndex.recover, name: name, second: other,
            direct: { r in r.successOnly() }, make: { _ in other })
    }

    /// Runs the task `make` returns from this task's error, if it fails.
    ///
    /// With a `queue`, `make` runs on that queue in its turn among that queue's handlers of
    /// this task (see `then(name:on:_:)`); after a success the task succeeds on that queue.
    @inlinable
    public func recover<F2>(
        name: String? = nil, on queue: DispatchQueue? = nil,
        _ make: @escaping @Sendable (Failure) -> GraphTask<Success, F2>
    ) -> GraphTask<Success, F2> {
        link(
            kindIndex: KindIndex.recover, name: name, queue: queue, second: nil,
            direct: { r in r.successOnly() },
            make: { r in
                guard case .failure(let e) = r else { preconditionFailure("recover: no error") }
                return make(e)
            })
    }

    /// Always runs the task `make` returns from this task's outcome.
    ///
    /// With a `queue`, `make` runs on that queue in its turn among that queue's handlers of
    /// this task (see `then(name:on:_:)`).
    @inlinable
    public func chain<S2, F2>(
        name: String? = nil, on queue: DispatchQueue? = nil,
        _ make: @escaping @Sendable (Result<Success, Failure>) -> GraphTask<S2, F2>
    ) -> GraphTask<S2, F2> {
        link(kindIndex: KindIndex.chain, name: name, queue: queue, second: nil, direct: { _ in nil }, make: make)
    }

    /// A two-link composite. `direct` settles the owner from the first outcome when it
    /// returns non-nil; otherwise `make` gives the second link. With a `queue`, both run
    /// there (`QueuedLinkDriver`).
    @inlinable
    func link<S2, F2>(
        kindIndex: UInt8, name: String?, queue: DispatchQueue? = nil, second: GraphTask<S2, F2>?,
        direct: @escaping @Sendable (Result<Success, Failure>) -> Result<S2, F2>?,
        make: @escaping @Sendable (Result<Success, Failure>) -> GraphTask<S2, F2>
    ) -> GraphTask<S2, F2> {
        let owner = GraphTask<S2, F2>(graph: graph, kindIndex: kindIndex, name: name, body: nil)
        let given = second != nil
        let driver = LinkDriver(first: self, second: second) { op, owner, a, b in
            switch op {
            case .decide:
                let r = unsafeDowncast(a, to: GraphTask<Success, Failure>.self)._result!
                return direct(r) != nil ? nil : make(r)
            case .finishFromFirst:
                let r = unsafeDowncast(a, to: GraphTask<Success, Failure>.self)._result!
                if let d = direct(r) { unsafeDowncast(owner!, to: GraphTask<S2, F2>.self).settle(d) }
                return nil
            case .finishFromSecond:
                let r = unsafeDowncast(a, to: GraphTask<S2, F2>.self)._result!
                unsafeDowncast(owner!, to: GraphTask<S2, F2>.self).settle(r)
                return nil
            case .remake(let newName, let queue):
                let first = unsafeDowncast(a, to: GraphTask<Success, Failure>.self)
                guard given, let b else {
                    return first.link(
                        kindIndex: kindIndex, name: newName ?? name, queue: queue, second: nil, direct: direct,
                        make: make)
                }
                let copy = unsafeDowncast(b, to: GraphTask<S2, F2>.self)
                return first.link(
                    kindIndex: kindIndex, name: newName ?? name, queue: queue, second: copy, direct: direct,
                    make: { _ in copy })
            }
        }
        // The plain driver is made as if there were no queue (a closure bound to a local and
        // passed on cost a retain and a release per link, W2), and a queued one from it.
        if let queue {
            owner.install(QueuedLinkDriver(queue: queue, from: driver))
        } else {
            owner.install(driver)
        }
        return owner
    }
}

extension AnyGraphTask {
    /// Gives a new composite its driver and adopts the driver's children.
    @usableFromInline
    func install(_ d: CompositeDriver) {
        let shared: Bool = withFamily(d.children) {
            driver = d
            d.adoptChildrenLocked(owner: self)
            return !d.sharedIndices.isEmpty
        }
        if shared { SharedTask.attachRefs(owner: self, driver: d) }
    }
}

extension Result {
    @inlinable
    func failureOnly<S2>() -> Result<S2, Failure>? {
        if case .failure(let e) = self { return .failure(e) }
        return nil
    }

    @inlinable
    func successOnly<F2>() -> Result<Success, F2>? {
        if case .success(let v) = self { return .success(v) }
        return nil
    }
}

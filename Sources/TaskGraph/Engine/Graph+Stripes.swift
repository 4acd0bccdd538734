import Synchronization

// The engine side of a graph (Graph.swift holds its public surface): its lock stripes, the
// whole-graph locked steps (locate, capture, reach a task, pending cancels), and observers
// joining and leaving (the sole recording stripe, the delivery list).

extension Graph {
    /// The stripe the calling thread's new tasks join.
    @inlinable
    var currentStripe: Unmanaged<Stripe> {
        stripeRefs[Trampoline.unretained._withUnsafeGuaranteedRef { $0.stripe }]
    }

    /// Runs `body` with every stripe locked (in index order, so whole-graph operations never
    /// deadlock with each other).
    func withAllStripes<T>(_ body: () throws -> T) rethrows -> T {
        for s in stripes { s.lock.lock() }
        defer { for s in stripes.reversed() { s.lock.unlock() } }
        return try body()
    }

    /// Every stripe's lock at once, for whole-graph steps (`lock.withLock { ... }`).
    var lock: AllStripes { AllStripes(graph: self) }

    struct AllStripes {
        let graph: Graph
        func withLock<T>(_ body: () throws -> T) rethrows -> T { try graph.withAllStripes(body) }
    }

    /// The stripe and slot of node `id`'s live record. All stripes locked.
    func locateLocked(_ id: Int) -> (Stripe, Int)? {
        assertAllStripesLocked()
        guard id >= 0 else { return nil }
        for s in stripes { if let slot = s.slot(of: id) { return (s, slot) } }
        return nil
    }

    /// The number of the last event. All stripes locked.
    func sequenceLocked() -> UInt64 {
        assertAllStripesLocked()
        return observed ? eventSequence : baseSequence &+ stripes.reduce(0) { $0 &+ $1.sequence }
    }

    /// About how many records the stripes hold, each stripe locked in turn: the capture's
    /// storage is allocated (and its pages touched) from it before the whole graph is locked.
    func nodeCountHint() -> Int {
        stripes.reduce(0) { n, s in s.lock.withLock { n + s.own.liveCount + s.foreign.liveCount } }
    }

    /// What a snapshot needs, copied while every stripe is locked; the snapshot itself is
    /// built after they are unlocked (`GraphCapture.snapshot()`), so the program's threads
    /// wait only for the copy. Building the snapshot under the locks held them 80 ms for
    /// 200,000 nodes, a stall of the program on each viewer's resync. All stripes locked.
    func captureLocked(into nodes: inout [NodeCapture]) -> GraphCapture {
        assertAllStripesLocked()
        unrecordedProgress.recordAllLocked()
        // Live records only: a long-running graph with retention has used millions of slots.
        nodes.reserveCapacity(stripes.reduce(0) { $0 + $1.own.liveCount + $1.foreign.liveCount })
        let summaries = droppedChildrenLocked()
        for s in stripes {
            s.assertInvariants() // O(records), as the copy is
            // A hash lookup per node otherwise, for the few `ref` nodes.
            let hasRefs = !s.own.refs.isEmpty || !s.foreign.refs.isEmpty
            // Retention keeps times too (for durations); snapshots give them when served.
            let hasStarts = s.hasStarts && keepsStartTimes
            s.forEachLive { slot, r in
                nodes.append(
                    NodeCapture(
                        record: r, message: r.failed ? s.message(slot) : nil,
                        refOf: hasRefs ? s.refOf(slot) : nil,
                        startTime: hasStarts && r.state != .notExecuted ? s.start(slot) : nil,
                        endTime: hasStarts && r.state.isSettled ? s.end(slot) : nil,
                        droppedChildren: summaries.isEmpty ? nil : summaries[r.id]))
            }
        }
        return GraphCapture(
            nodes: nodes, sequence: sequenceLocked(), warnings: cancelWatch.current,
            droppedRoots: droppedRootsLocked().mapValues(\.summary))
    }

    /// All stripes locked: from now on every event takes `eventLock` for its number.
    func addObserverLocked(_ observer: GraphObserver) {
        assertAllStripesLocked()
        // The observer sees every change from now on: none may stay unrecorded.
        unrecordedProgress.recordAllLocked()
        eventLock.withLock {
            if !observed {
                eventSequence = sequenceLocked()
                observed = true
                let holding = stripes.filter { $0.own.count > 0 || $0.foreign.count > 0 }
                soleStripe.store(
                    holding.isEmpty
                        ? Graph.soleStripeUnclaimed
                        : holding.count == 1 ? holding[0].index : Graph.noSoleStripe,
                    ordering: .relaxed)
            }
            observers.append(observer)
        }
    }

    /// A root is about to get a node in stripe `u` (whose lock is held) while the graph is
    /// observed: if another stripe delivers alone, or none claimed that yet, this changes it
    /// (with every stripe locked, so no delivery is under way), unlocking `u` meanwhile.
    @inline(__always)
    func admitRootLocked(_ u: Unmanaged<Stripe>) {
        u.with { $0.assertLocked() }
        guard _slowPath(observed) else { return }
        let sole = soleStripe.load(ordering: .relaxed)
        guard sole != Graph.noSoleStripe, sole != u.with({ $0.index }) else { return }
        claimSoleStripe(u)
    }

    @inline(never)
    private func claimSoleStripe(_ u: Unmanaged<Stripe>) {
        let index = u.with { $0.index }
        u.mutex.unlock()
        withAllStripes {
            eventLock.withLock {
                let sole = soleStripe.load(ordering: .relaxed)
                guard observed, sole != Graph.noSoleStripe, sole != index else { return }
                soleStripe.store(sole == Graph.soleStripeUnclaimed ? index : Graph.noSoleStripe, ordering: .relaxed)
            }
        }
        u.mutex.lock()
    }

    /// Runs `body` while no observer is being called: with the event lock held and, while
    /// one stripe delivers alone, that stripe's lock too. For whatever must not overlap a
    /// delivery (a flush, an append to an observer's spool from elsewhere). `body` takes no
    /// stripe lock.
    func withDeliveriesPaused<T>(_ body: () throws -> T) rethrows -> T {
        while true {
            let sole = soleStripe.load(ordering: .relaxed)
            if sole >= 0 { stripes[sole].lock.lock() }
            eventLock.lock()
            if soleStripe.load(ordering: .relaxed) == sole {
                defer {
                    eventLock.unlock()
                    if sole >= 0 { stripes[sole].lock.unlock() }
                }
                return try body()
            }
            eventLock.unlock()
            if sole >= 0 { stripes[sole].lock.unlock() }
        }
    }

    /// Called with `eventLock` held, after each change of `observers`.
    func rebuildDeliveryList() {
        deliveryList.deallocate()
        deliveryList = .allocate(capacity: observers.count)
        _ = deliveryList.initialize(from: observers.lazy.map { Unmanaged.passUnretained($0) })
        lastObserverKeeps = observers.last?.keeps ?? false
    }

    func removeObserver(_ observer: GraphObserver) {
        withAllStripes {
            eventLock.withLock {
                observers.removeAll { $0 === observer }
                guard observers.isEmpty, observed else { return }
                // Back to per-stripe counting; the stripes' counters stood still meanwhile.
                observed = false
                soleStripe.store(Graph.noSoleStripe, ordering: .relaxed)
                baseSequence = eventSequence &- stripes.reduce(0) { $0 &+ $1.sequence }
            }
        }
    }

    /// The node's task, if the graph can reach it: an executing task (the graph holds it), or
    /// a subtask of one, found through the drivers that hold their subtasks. A not-executed
    /// root held only by its owner cannot be reached (the graph holds no reference to it).
    /// All stripes locked; a node and its parents share stripe `s`.
    func reachableTaskLocked(_ s: Stripe, _ id: Int) -> AnyGraphTask? {
        assertAllStripesLocked()
        var path: [Int] = []
        var at = id
        while true {
            guard let slot = s.slot(of: at) else { return nil }
            if let t = s[slot].retained { return descendLocked(from: t, along: path) }
            let parent = s[slot].parent
            guard parent >= 0 else { return nil }
            path.append(at)
            at = parent
        }
    }

    private func descendLocked(from top: AnyGraphTask, along path: [Int]) -> AnyGraphTask? {
        assertAllStripesLocked()
        var t = top
        for id in path.reversed() {
            guard let d = t.driver, let child = d.childLocked(rawID: id) else { return nil }
            t = child
        }
        return t
    }

    /// Cancels a node whose task the graph cannot reach: the records change now (with their
    /// events), and the task object, if it still exists, takes the state when next touched.
    /// The upward rule applies to its parents the same way. All stripes locked.
    func pendingCancelLocked(_ s: Stripe, _ first: Int, source: String) {
        assertAllStripesLocked()
        var id = first
        var src = source
        while let slot = s.slot(of: id), s[slot].state == .notExecuted {
            let added = pendingLock.withLock { pendingCancels.updateValue(src, forKey: id) == nil }
            if added { pendingCancelCount.add(1, ordering: .relaxed) }
            let parent = s[slot].parent
            _ = setStateLocked(s, slot, .cancelled, cancelRequest: (id, src))
            guard parent >= 0, let ps = s.slot(of: parent), s[ps].kind != NodeKind.allSettled else { return }
            id = parent
            src = CancelSource.child
        }
    }
}

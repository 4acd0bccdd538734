#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The recording side of `Graph`: every method here runs with `lock` held and turns one
/// change into the record update plus, when somebody observes, one event.
extension Graph {
    /// Longest name or message recorded, in UTF-8 bytes.
    static let maxTextBytes = 4096

    func cut(_ text: String) -> String { Graph.cut(text) }

    /// `text` cut to at most `maxTextBytes` UTF-8 bytes, on a scalar boundary.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > maxTextBytes else { return text }
        var bytes = 0
        var end = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            if bytes + width > maxTextBytes { break }
            bytes += width
            end = text.unicodeScalars.index(after: end)
        }
        return String(text.unicodeScalars[..<end])
    }

    /// Counts one event in stripe `s` (whose lock is held) and, when somebody observes,
    /// numbers it, builds it and hands it on (the change is built only then).
    @inline(__always)
    func emit(_ s: Stripe, _ change: @autoclosure () -> GraphChange) {
        guard observed else {
            s.sequence &+= 1
            return
        }
        emitObserved(s.index, change())
    }

    /// Two events of one step (a cancel request and the state change it makes), recorded
    /// together: one turn of the event lock and one reading of the clock for both.
    @inline(__always)
    func emit(_ s: Stripe, _ first: @autoclosure () -> GraphChange, _ second: @autoclosure () -> GraphChange) {
        guard observed else {
            s.sequence &+= 2
            return
        }
        emitObserved(s.index, first(), second())
    }

    /// `stripe`: the index of the stripe whose lock is held. When it is the one stripe that
    /// records (`soleStripe`), that lock already keeps deliveries apart and in order, and the
    /// event lock is not taken: it cost every observed event two locked instructions (a no-op
    /// observer's W1 ~0.02 µs a task).
    @inline(never)
    func emitObserved(_ stripe: Int, _ change: consuming GraphChange) {
        let cycles = readsCycles ? EventClock.cycles() : 0 // outside the lock: see EventClock.cycles
        if soleStripe.load(ordering: .relaxed) == stripe {
            deliverLocked(change, at: now(cycles))
            return
        }
        eventLock.lock()
        deliverLocked(change, at: now(cycles))
        eventLock.unlock()
    }

    @inline(never)
    func emitObserved(_ stripe: Int, _ first: consuming GraphChange, _ second: consuming GraphChange) {
        let cycles = readsCycles ? EventClock.cycles() : 0
        let sole = soleStripe.load(ordering: .relaxed) == stripe
        if !sole { eventLock.lock() }
        let time = now(cycles)
        eventSequence &+= 2
        let one = GraphEvent(sequence: eventSequence &- 1, time: time, change: consume first)
        let two = GraphEvent(sequence: eventSequence, time: time, change: consume second)
        // As `deliverLocked`, with both events handed over together (one queueing for the
        // recorder or server instead of two).
        let list = deliveryList
        let handled = lastObserverKeeps ? list.count - 1 : list.count
        for i in 0..<handled {
            list[i]._withUnsafeGuaranteedRef {
                $0.handler(one)
                $0.handler(two)
            }
        }
        if handled < list.count {
            list[handled]._withUnsafeGuaranteedRef { $0.keep(consume one, consume two) }
        } else {
            Graph.discard(consume one)
            Graph.discard(consume two)
        }
        if !sole { eventLock.unlock() }
    }

    /// Numbers one event and hands it to every observer (deliveries kept apart: `eventLock`
    /// held, or the lock of the sole recording stripe).
    @inline(__always)
    private func deliverLocked(_ change: consuming GraphChange, at time: Double) {
        assertDeliveriesKeptApart()
        eventSequence &+= 1
        // Consumed, not copied: the change's strings and arrays are not retained again.
        let event = GraphEvent(sequence: eventSequence, time: time, change: consume change)
        // Unretained: the list and its observers change only under `eventLock`, which is
        // held, so each observer outlives its call (no retain/release pair per observer and
        // event). A last observer that keeps events (recorder, server) gets this one itself:
        // no copy, no destroy.
        let list = deliveryList
        let handled = lastObserverKeeps ? list.count - 1 : list.count
        for i in 0..<handled {
            list[i]._withUnsafeGuaranteedRef { $0.handler(event) }
        }
        if handled < list.count {
            list[handled]._withUnsafeGuaranteedRef { $0.keep(consume event) }
        } else {
            Graph.discard(consume event)
        }
    }

    /// Ends a delivered event's life here, case by case: left to the compiler, each event's
    /// destroy took three calls (an outlined destroy of the event, its value witness, the
    /// change's outlined destroy), about 110 instructions a W1 task; a no-op observer's W1
    /// went from 1.22-1.23x to 1.19x of plain.
    @inline(__always)
    static func discard(_ event: consuming GraphEvent) {
        let change = (consume event).change
        switch consume change {
        case .added(_, let kind, let name, _, _, _):
            _ = consume kind
            _ = consume name
        case .stateChanged(_, _, _, let message): if let message { _ = consume message }
        case .progress(_, let progress): _ = consume progress
        case .cancelRequested(_, let source): _ = consume source
        case .dropped(let ids): _ = consume ids
        case .output(_, _, let text): _ = consume text
        case .attributes(_, let attributes): _ = consume attributes
        case .parentSet, .weightChanged, .ref: break
        default: break // rare kinds (attempts, renames, later ones): the compiler's destroy
        }
    }

    /// The clock's time; a `MonotonicClock` is read directly (no call through the protocol),
    /// through `eventClock` (`eventLock` held).
    @inline(__always)
    private func now(_ cycles: UInt64) -> Double {
        guard clockIsMonotonic else { return clock.now }
        return eventClock.now(cycles: cycles)
    }

    /// Records a new node in stripe `s` (a child of the task in `parentSlot`, if given, which
    /// is in `s` too); returns its id and slot.
    func addNodeLocked(
        _ s: Stripe, kindIndex: UInt8, name: String, weight: Double,
        parentSlot: Int? = nil, index: Int = 0
    ) -> (id: Int, slot: Int) {
        s.assertLocked()
        let parentID = parentSlot.map { parentIDLocked(s, $0) } ?? -1
        // (id and slot come back together: reading the record again through the stripe's
        // nested `_read` accessors costs a heap-allocated coroutine frame.)
        let (id, slot) = s.append(
            { NodeRecord(id: $0, kindIndex: kindIndex, parent: parentID, weight: weight, name: name) },
            claim: { nextBlock.wrappingAdd(1, ordering: .relaxed).oldValue })
        if parentID >= 0, let parentSlot {
            insertChild(s, id, into: parentSlot, at: index)
            if let policy = retentionPolicy {
                childAddedLocked(s, parentSlot: parentSlot, parentID: parentID, policy: policy)
            }
        }
        emit(
            s,
            .added(
                id: NodeID(id), kind: NodeKind.all[Int(kindIndex)], name: name, weight: weight,
                parent: parentID >= 0 ? NodeID(parentID) : nil, index: parentID >= 0 ? index : nil))
        return (id, slot)
    }

    /// The id of the parent in `slot` of `s`, or -1 if it was dropped. Out of line: inlined,
    /// it made `addNodeLocked` too large to be inlined into a root's creation (W1 +0.6 %).
    @inline(never)
    private func parentIDLocked(_ s: Stripe, _ slot: Int) -> Int {
        s.assertLocked()
        return s.contains(slot) ? s.id(ofSlot: slot) : -1
    }

    func setParentLocked(_ s: Stripe, _ slot: Int, id: Int, parentSlot: Int, parent: Int, index: Int) {
        s.assertLocked()
        // A node already dropped by retention (a finished root) is not recorded again.
        guard s.contains(slot), s.contains(parentSlot) else { return }
        s.modify(slot) { $0.parent = parent }
        insertChild(s, id, into: parentSlot, at: index)
        if let policy = retentionPolicy {
            childAddedLocked(s, parentSlot: parentSlot, parentID: parent, policy: policy)
        }
        emit(s, .parentSet(id: NodeID(id), parent: NodeID(parent), index: index))
    }

    private func insertChild(_ s: Stripe, _ id: Int, into parentSlot: Int, at index: Int) {
        s.modify(parentSlot) { r in
            if index >= r.children.count {
                r.children.append(NodeID(id))
            } else {
                r.children.insert(NodeID(id), at: max(0, index))
            }
        }
    }

    /// Records that the `ref` node in `slot` stands for the shared node `of`.
    func setRefLocked(_ s: Stripe, _ slot: Int, of: Int) {
        s.assertLocked()
        guard s.contains(slot) else { return }
        s.setRef(slot, of)
        emit(s, .ref(id: NodeID(s[slot].id), of: NodeID(of)))
    }

    func setWeightLocked(_ s: Stripe, _ slot: Int, _ weight: Double) {
        s.assertLocked()
        guard s.contains(slot) else { return }
        var id = 0
        s.modify(slot) { r in
            r.weight = weight
            id = r.id
        }
        emit(s, .weightChanged(id: NodeID(id), weight: weight))
    }

    @usableFromInline
    func setProgressLocked(_ s: Stripe, _ slot: Int, _ progress: TaskProgress) {
        s.assertLocked()
        guard s.contains(slot) else { return }
        var id = 0
        s.modify(slot) { r in
            r.fraction = progress.fraction
            r.info = progress.info
            id = r.id
        }
        emit(s, .progress(id: NodeID(id), progress: progress))
    }

    /// Stores a progress in the record with no event: a scope's derived progress recorded
    /// late (`UnrecordedProgress`), whose event was counted when it changed, unobserved.
    func storeProgressLocked(_ s: Stripe, _ slot: Int, _ progress: TaskProgress) {
        s.assertLocked()
        guard s.contains(slot) else { return }
        s.modify(slot) { r in
            r.fraction = progress.fraction
            r.info = progress.info
        }
    }

    func cancelRequestedLocked(_ s: Stripe, _ id: Int, source: String) {
        s.assertLocked()
        emit(s, .cancelRequested(id: NodeID(id), source: cut(source)))
    }

    /// Records a state change. `retain` is the task to keep alive while executing; the
    /// returned task (the one released on settling) must be released after unlocking.
    @usableFromInline
    func setStateLocked(
        _ s: Stripe, _ slot: Int, _ state: TaskState, failed: Bool = false,
        message: String? = nil, retain: AnyGraphTask? = nil,
        cancelRequest: (id: Int, source: String)? = nil
    ) -> AnyGraphTask? {
        s.assertLocked()
        guard s.contains(slot) else {
            if let cancelRequest { cancelRequestedLocked(s, cancelRequest.id, source: cancelRequest.source) }
            return nil
        }
        var released: AnyGraphTask?
        var id = 0
        var parent = -1
        let msg = message.map(cut)
        s.modify(slot) { r in
            r.state = state
            r.failed = failed
            if state == .executing {
                r.retained = retain
            } else if state.isSettled {
                released = r.retained
                r.retained = nil
                if state == .completed && !failed { r.fraction = 1 }
            }
            id = r.id
            parent = r.parent
        }
        if failed, let msg { s.setMessage(slot, msg) }
        if keepsStartTimes, state == .executing {
            s.setStart(slot, clock.now) // the event clock needs `eventLock`; this is the clock it follows
        } else if keepsStartTimes, state.isSettled {
            s.setEnd(slot, clock.now)
        }
        if let cancelRequest {
            // The request and the state change it makes are one step: recorded together.
            emit(
                s, .cancelRequested(id: NodeID(cancelRequest.id), source: cut(cancelRequest.source)),
                .stateChanged(id: NodeID(id), state: state, failed: failed, message: failed ? msg : nil))
        } else {
            emit(s, .stateChanged(id: NodeID(id), state: state, failed: failed, message: failed ? msg : nil))
        }
        if let policy = retentionPolicy {
            retentionTransitionLocked(s, slot, id: id, parent: parent, state: state, failed: failed, policy: policy)
            if state.isSettled, parent < 0 { rootFinishedLocked(s, id) }
        }
        return released
    }

    func rootFinishedLocked(_ s: Stripe, _ id: Int) {
        s.assertLocked()
        guard let policy = retentionPolicy else { return }
        let now = clock.now
        s.finishedRoots.append((id, now))
        var drop: [NodeID] = []
        var roots: [DroppedRoot] = []
        while s.finishedRootsHead < s.finishedRoots.count {
            let (root, time) = s.finishedRoots[s.finishedRootsHead]
            let live = s.finishedRoots.count - s.finishedRootsHead
            let tooOld = policy.maxAge.map { now - time > $0 } ?? false
            guard live > policy.maxFinishedRoots || tooOld else { break }
            s.finishedRootsHead += 1
            guard let slot = s.slot(of: root) else { continue }
            roots.append(droppedRootLocked(s, slot))
            collectSubtree(s, root, into: &drop)
        }
        if s.finishedRootsHead > 1024 && s.finishedRootsHead * 2 > s.finishedRoots.count {
            s.finishedRoots.removeFirst(s.finishedRootsHead)
            s.finishedRootsHead = 0
        }
        guard !drop.isEmpty else { return }
        dropLocked(s, drop)
        tallyDroppedRootsLocked(s, roots)
    }

    func collectSubtree(_ s: Stripe, _ root: Int, into out: inout [NodeID]) {
        var stack = [root]
        while let id = stack.popLast() {
            guard let slot = s.slot(of: id) else { continue }
            out.append(NodeID(id))
            for c in s[slot].children { stack.append(c.rawValue) }
        }
    }

    /// Moves the subtree of `task` (tasks reachable through drivers, and every record under
    /// its node) from stripe `from` to stripe `to`. Both locked.
    func moveLocked(_ task: AnyGraphTask, from: Stripe, to: Stripe) {
        from.assertLocked()
        to.assertLocked()
        var slots: [Int: Int] = [:] // id -> new slot
        var stack = [task.rawID]
        while let id = stack.popLast() {
            guard let old = from.slot(of: id) else { continue }
            let record = from[old]
            let message = from.message(old)
            let refOf = from.refOf(old)
            let start = from.hasStarts ? from.start(old) : nil
            let end = from.hasStarts ? from.end(old) : nil
            from.drop(old)
            if !from.retainedParents.isEmpty, let entry = from.retainedParents.removeValue(forKey: id) {
                to.retainedParents[id] = entry
            }
            let slot = to.adopt(record, message: message, refOf: refOf)
            if let start { to.setStart(slot, start) }
            if let end { to.setEnd(slot, end) }
            slots[id] = slot
            for c in record.children { stack.append(c.rawValue) }
        }
        var tasks = [task]
        while let t = tasks.popLast() {
            t.slot = slots[t.rawID] ?? Int.min // Int.min: no record (dropped)
            t._stripe.store(UInt16(to.index), ordering: .releasing)
            if let d = t.driver { tasks.append(contentsOf: d.children) }
        }
    }
}

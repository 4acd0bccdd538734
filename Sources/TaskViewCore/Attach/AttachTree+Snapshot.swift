import TaskGraph

/// Seeding a program's subtree from a snapshot (the first one, a resync's, the program's
/// last): in one pass into an empty subtree, or compared with what the tree has.
extension AttachTree {
    /// A snapshot (the first one, a resync's, the program's last) brings the program's
    /// subtree up to date. The first goes into the tree in one pass; a later one is compared
    /// with what the tree has: nodes it still has keep their local ids and their times (so
    /// selection, folding and durations survive a resync), what the tree lacked is added
    /// with the program's own start and end times, outcomes missed meanwhile are recorded at
    /// the time they happened, and only nodes the program no longer has are dropped. A
    /// recording never sees the program's tree dropped and added again (truth.md).
    mutating func replace(
        _ p: Int, nodes: [LogModel.Node], roots: [Int], time snapTime: Double,
        tree: inout TreeModel, now: Double
    ) {
        let t = time(snapTime, p, now: now)
        let row = programs[p].row
        tree.flushReindex() // children's positions are read below
        // `nodes` ascend by id: positions by binary search, no table.
        func position(_ id: Int) -> Int? {
            var lo = 0
            var hi = nodes.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int(nodes[mid].id) < id { lo = mid + 1 } else { hi = mid }
            }
            return lo < nodes.count && Int(nodes[lo].id) == id ? lo : nil
        }
        // What the program no longer has goes (children before their parents).
        let previous = programs[p].localOf
        var gone: [NodeID] = []
        for (r, l) in previous where position(r) == nil && tree.contains(l) { gone.append(NodeID(l)) }
        if !gone.isEmpty {
            gone.sort { $0.rawValue > $1.rawValue }
            emit(.dropped(ids: gone), at: t, into: &tree)
        }
        // Local id of each snapshot node, by position.
        var localAt: [Int] = []
        localAt.reserveCapacity(nodes.count)
        var keep: [Int: Int] = [:]
        keep.reserveCapacity(nodes.count)
        var isNew: [Bool] = []
        isNew.reserveCapacity(nodes.count)
        for k in nodes.indices {
            let r = Int(nodes[k].id)
            let known = previous[r].flatMap { tree.contains($0) ? $0 : nil }
            let l = known ?? allocate()
            localAt.append(l)
            isNew.append(known == nil)
            keep[r] = l
            owner[l] = Owner(program: Int32(p), remote: r)
        }
        for (r, l) in previous where keep[r] == nil { owner[l] = nil }
        programs[p].localOf = keep
        var order: [Int] = [] // indices into nodes, parents before children
        order.reserveCapacity(nodes.count)
        for r in roots { if let k = position(r) { order.append(k) } }
        var head = 0
        while head < order.count {
            for c in nodes[order[head]].children { if let k = position(Int(c)) { order.append(k) } }
            head += 1
        }
        // Each node's parent and its place there: the recorded `add` lines carry the index,
        // so the log replays children in this order (an `add` without one goes first).
        var parents: [Int] = []
        var indices: [Int] = []
        parents.reserveCapacity(order.count)
        indices.reserveCapacity(order.count)
        var childCount = [Int](repeating: 0, count: nodes.count)
        var rowCount = tree.contains(row) ? tree[row].children.count : 0
        for k in order {
            let parent = Int(nodes[k].parent)
            if parent >= 0, let q = position(parent) {
                parents.append(localAt[q])
                indices.append(childCount[q])
                childCount[q] += 1
            } else if isNew[k] {
                parents.append(row)
                indices.append(rowCount)
                rowCount += 1
            } else {
                parents.append(row)
                indices.append(tree.contains(localAt[k]) ? Int(tree[localAt[k]].index) : rowCount)
            }
        }
        // The node's own times (the snapshot's `started` and `ended`, on the program's clock)
        // on the viewer's: work begun before attaching shows how long it has run, and work
        // settled before (or while the viewer lagged) how long it took. Never after the
        // snapshot; an older program's snapshot without them: the snapshot's time.
        let offset = programs[p].clockOffset ?? 0
        func start(_ started: Double?) -> Double { min(t, (started ?? .infinity) - offset) }
        func end(_ started: Double?, _ ended: Double?) -> Double {
            let e = min(t, (ended ?? .infinity) - offset)
            return started == nil ? e : max(start(started), e)
        }
        if !order.contains(where: { !isNew[$0] }) {
            addAll(
                nodes, under: row, order: order, parents: parents, indices: indices, localAt: localAt, keep: keep,
                time: t, start: start, end: end, tree: &tree)
        } else {
            for (o, k) in order.enumerated() {
                if isNew[k] {
                    addOne(
                        nodes[k], local: localAt[k], parent: parents[o], index: indices[o], keep: keep, at: t,
                        start: start(nodes[k].started), end: end(nodes[k].started, nodes[k].ended), tree: &tree)
                } else {
                    update(
                        localAt[k], to: nodes[k], parent: parents[o], index: indices[o], at: t,
                        start: start(nodes[k].started), end: end(nodes[k].started, nodes[k].ended), tree: &tree)
                }
            }
        }
        // Restarts' attempts once their trees are whole (drawn in the rows they replace).
        for k in order where isNew[k] && nodes[k].attemptOf >= 0 {
            guard let of = keep[Int(nodes[k].attemptOf)] else { continue }
            emit(.attempt(id: NodeID(localAt[k]), of: NodeID(of)), at: t, into: &tree)
        }
        // Warnings as the program has them now: begun or ended while the viewer was away.
        for k in order {
            let had = tree.warnings[localAt[k]] ?? [:]
            let now = nodes[k].warnings
            guard had != now else { continue }
            for rule in Set(had.keys).union(now.keys).sorted() where had[rule] != now[rule] {
                emit(.warn(id: NodeID(localAt[k]), rule: rule, text: now[rule]), at: t, into: &tree)
            }
        }
        // What retention dropped of each node's children, as the program counts it now.
        for k in order {
            guard let dropped = nodes[k].droppedChildren, tree.droppedSummaries[localAt[k]] != dropped else { continue }
            emit(.summary(id: NodeID(localAt[k]), root: nil, summary: dropped), at: t, into: &tree)
        }
    }

    // Of a snapshot node's fields, not the node: a node handed to a function, or read through
    // a property of its own, was copied whole (256 bytes, a dozen references), once per node.

    /// Whether a snapshot node ran: executing or completed, or cancelled after it began (a
    /// node cancelled before it ran has no start).
    static func began(_ state: TaskState, started: Double?) -> Bool {
        state == .executing || state == .completed || (state == .cancelled && started != nil)
    }

    /// Whether a snapshot node's progress is worth an event (a success's implied 1 is not).
    static func hasOwnProgress(_ state: TaskState, failed: Bool, fraction: Double, info: String?) -> Bool {
        (fraction > 0 || info != nil) && !(state == .completed && !failed && fraction == 1 && info == nil)
    }

    /// The program's whole subtree is new here (the first snapshot, or everything was
    /// dropped): it goes into the tree in one pass, as the events would leave it; they are
    /// still written to the recorder one by one, so the log is what it was.
    mutating func addAll(
        _ nodes: [LogModel.Node], under row: Int, order: [Int], parents: [Int], indices: [Int], localAt: [Int],
        keep: [Int: Int], time t: Double, start: (Double?) -> Double, end: (Double?, Double?) -> Double,
        tree: inout TreeModel
    ) {
        let loaded = bulkNodes(
            nodes, order: order, parents: parents, localAt: localAt, keep: keep, time: t, start: start, end: end)
        let bulk = tree.canLoad(loaded, under: row)
        // Read in place, as `bulkNodes` does (a tenth of a resync's tick went to copies).
        nodes.withUnsafeBufferPointer { b in
            for (o, k) in order.enumerated() {
                emit(
                    .added(
                        id: NodeID(localAt[k]), kind: b[k].kind, name: b[k].name, weight: b[k].weight,
                        parent: NodeID(parents[o]), index: indices[o]), at: t, into: &tree, absorb: !bulk)
            }
            for k in order where b[k].refOf >= 0 {
                guard let of = keep[Int(b[k].refOf)] else { continue }
                emit(.ref(id: NodeID(localAt[k]), of: NodeID(of)), at: t, into: &tree, absorb: !bulk)
            }
            for k in order where Self.began(b[k].state, started: b[k].started) {
                emit(
                    .stateChanged(id: NodeID(localAt[k]), state: .executing, failed: false, message: nil),
                    at: start(b[k].started), into: &tree, absorb: !bulk)
            }
            for k in order.reversed() where b[k].state.isSettled {
                emit(
                    .stateChanged(
                        id: NodeID(localAt[k]), state: b[k].state, failed: b[k].failed, message: b[k].message),
                    at: end(b[k].started, b[k].ended), into: &tree, absorb: !bulk)
            }
            for k in order
            where Self.hasOwnProgress(b[k].state, failed: b[k].failed, fraction: b[k].fraction, info: b[k].info) {
                emit(
                    .progress(id: NodeID(localAt[k]), progress: TaskProgress(b[k].fraction, info: b[k].info)),
                    at: t, into: &tree, absorb: !bulk)
            }
        }
        if bulk { tree.load(loaded, sequence: sequence, time: t) }
    }

    /// A node the tree lacked (begun, or settled, while the viewer was behind), with its
    /// own times.
    mutating func addOne(
        _ n: LogModel.Node, local l: Int, parent: Int, index: Int, keep: [Int: Int], at t: Double,
        start: Double, end: Double, tree: inout TreeModel
    ) {
        emit(
            .added(id: NodeID(l), kind: n.kind, name: n.name, weight: n.weight, parent: NodeID(parent), index: index),
            at: t, into: &tree)
        if n.refOf >= 0, let of = keep[Int(n.refOf)] { emit(.ref(id: NodeID(l), of: NodeID(of)), at: t, into: &tree) }
        if Self.began(n.state, started: n.started) {
            emit(.stateChanged(id: NodeID(l), state: .executing, failed: false, message: nil), at: start, into: &tree)
        }
        if Self.hasOwnProgress(n.state, failed: n.failed, fraction: n.fraction, info: n.info) {
            emit(.progress(id: NodeID(l), progress: TaskProgress(n.fraction, info: n.info)), at: t, into: &tree)
        }
        if n.state.isSettled {
            emit(
                .stateChanged(id: NodeID(l), state: n.state, failed: n.failed, message: n.message), at: end, into: &tree
            )
        }
    }

    /// A node the tree has: what changed while the viewer was behind, each change at its
    /// own time where the snapshot gives it.
    mutating func update(
        _ l: Int, to n: LogModel.Node, parent: Int, index: Int, at t: Double, start: Double, end: Double,
        tree: inout TreeModel
    ) {
        let had = tree[l]
        if Int(had.parent) != parent {
            emit(.parentSet(id: NodeID(l), parent: NodeID(parent), index: index), at: t, into: &tree)
        }
        if had.name != Sanitizer.clean(n.name) { emit(.renamed(id: NodeID(l), name: n.name), at: t, into: &tree) }
        if had.weight != n.weight { emit(.weightChanged(id: NodeID(l), weight: n.weight), at: t, into: &tree) }
        if had.state == .notExecuted && Self.began(n.state, started: n.started) {
            emit(.stateChanged(id: NodeID(l), state: .executing, failed: false, message: nil), at: start, into: &tree)
        }
        let progressed =
            Self.hasOwnProgress(n.state, failed: n.failed, fraction: n.fraction, info: n.info)
            && (had.fraction != n.fraction || had.info != n.info)
        if progressed && !had.state.isSettled {
            emit(.progress(id: NodeID(l), progress: TaskProgress(n.fraction, info: n.info)), at: t, into: &tree)
        }
        if n.state.isSettled && !had.state.isSettled { // an outcome missed, when it happened
            emit(
                .stateChanged(id: NodeID(l), state: n.state, failed: n.failed, message: n.message), at: end, into: &tree
            )
        }
    }

    /// The snapshot's nodes (in `order`) as the `added`, `ref`, state and progress events
    /// of `replace` leave them in the tree.
    func bulkNodes(
        _ nodes: [LogModel.Node], order: [Int], parents: [Int], localAt: [Int],
        keep: [Int: Int], time t: Double, start: (Double?) -> Double, end: (Double?, Double?) -> Double
    ) -> [TreeModel.Loaded] {
        var out: [TreeModel.Loaded] = []
        out.reserveCapacity(order.count)
        // Read in place: a snapshot node is 256 bytes and a dozen references, which a copy
        // per node retained and released (a resync's thousands of nodes, in one tick).
        nodes.withUnsafeBufferPointer { b in
            for (o, k) in order.enumerated() {
                var node = TreeModel.Node()
                node.kind = b[k].kind
                node.name = Sanitizer.clean(b[k].name)
                node.weight = b[k].weight
                node.addedAt = t
                if b[k].refOf >= 0, let of = keep[Int(b[k].refOf)] { node.refOf = Int32(of) }
                if Self.began(b[k].state, started: b[k].started) {
                    node.state = .executing
                    node.startedAt = start(b[k].started)
                }
                if b[k].state.isSettled {
                    node.state = b[k].state
                    node.failed = b[k].failed
                    node.message = b[k].failed ? b[k].message : nil
                    node.endedAt = end(b[k].started, b[k].ended)
                    if b[k].state == .completed && !b[k].failed { node.fraction = 1 }
                }
                if Self.hasOwnProgress(b[k].state, failed: b[k].failed, fraction: b[k].fraction, info: b[k].info) {
                    let p = TaskProgress(b[k].fraction, info: b[k].info)
                    node.fraction = p.fraction
                    node.info = p.info
                }
                out.append(TreeModel.Loaded(id: localAt[k], parent: parents[o], node: node))
            }
        }
        return out
    }
}

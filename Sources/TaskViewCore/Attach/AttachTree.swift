import TaskGraph

/// The dashboard tree of an attach session: one top-level row per program, `NAME (pid N)`,
/// with that program's roots under it. Each program's node ids are mapped to local ids,
/// allocated densely in arrival order (ids from different programs never collide, and a
/// huge remote id costs no more than a small one); cancels map back. Times are moved onto
/// the viewer's clock (seconds since attaching), so durations are the program's own.
/// Pure: fed by `StreamItem`s, tested without sockets.
package struct AttachTree {
    /// Kind of a program row (never a `TaskGraph` kind).
    static let programKind = TreeModel.programKind

    /// How a program's connection stands; shown in its row.
    package enum Status: Sendable, Equatable {
        case connecting, connected
        case resynced(skipped: Int)
        /// Ended with `end`; the outcome of its roots then (nil: a root had not settled).
        case exited(RootOutcome?)
        case killed
        case broken(String)
        /// The program refused the connection and said why (its error line before any
        /// header): e.g. `refused: the program runs as another user`.
        case refused(String)

        package var word: String {
            switch self {
            case .connecting: "connecting"
            case .connected: "connected"
            case .resynced(let n): "resynced (\(n) skipped)"
            case .exited(let o): "exited: " + (o?.word ?? "unfinished")
            case .killed: "killed"
            case .broken(let why): "disconnected: " + why
            case .refused(let why): why.hasPrefix("refused") ? why : "refused: " + why
            }
        }

        /// The program's own outcome once its connection is over, as `run` reports a root's:
        /// a failed or unsettled root, a kill, a refusal or a broken stream are failures. Nil
        /// before.
        package var outcome: RootOutcome? {
            switch self {
            case .exited(let o): o ?? .failed
            case .killed, .broken, .refused: .failed
            default: nil
            }
        }

        /// The connection is over (the subtree stays on screen).
        package var isOver: Bool {
            switch self {
            case .exited, .killed, .broken, .refused: true
            default: false
            }
        }
    }

    package struct Program: Sendable {
        package var row: Int
        package var pid: Int?
        package var name: String
        package var status: Status = .connecting
        var localOf: [Int: Int] = [:]
        /// Program clock minus viewer clock, from the first timed line.
        package var clockOffset: Double?
        var awaitingSnapshot = false
        /// An error line received before the header: why the program refused us.
        var refusal: String?
        /// Events arrived since the row's bar was last worked out (`refreshRows`).
        var rowStale = false

        /// `NAME (pid N)`, sanitized.
        package var label: String {
            let n = Sanitizer.clean(name)
            return pid.map { "\(n) (pid \($0))" } ?? n
        }
    }

    package private(set) var programs: [Program] = []
    /// By local id: the program index and remote id of each live node (not program rows).
    /// A dictionary, emptied as nodes are dropped: an array indexed by local id grew with
    /// every node a long-running program ever made.
    private var owner: [Int: Owner] = [:]
    /// Local ids mapped to a program's node (tests: memory follows the live nodes).
    var mappedCount: Int { owner.count }

    private struct Owner: Sendable {
        var program: Int32 = -1
        var remote = 0
    }
    private var nextLocal = 0
    private var sequence: UInt64 = 0

    /// No programs yet.
    package init() {}

    /// Where the tree's events are also written (`--record`), on the viewer's clock.
    package var recorder: GraphRecorder?
    /// Where the tree's events also go as they happen (the live OTLP stream).
    package var stream: (@Sendable (GraphEvent) -> Void)?

    /// Adds a program; its row appears once its header names it (or when the connection
    /// ends first, under `name`, e.g. the socket path). Returns the program's index.
    package mutating func addProgram(name: String, pid: Int?) -> Int {
        programs.append(Program(row: allocate(), pid: pid, name: name))
        return programs.count - 1
    }

    private mutating func ensureRow(_ p: Int, tree: inout TreeModel, now: Double) {
        let row = programs[p].row
        guard !tree.contains(row) else { return }
        emit(
            .added(
                id: NodeID(row), kind: Self.programKind, name: programs[p].label,
                weight: 1, parent: nil, index: nil), at: now, into: &tree)
        emit(.stateChanged(id: NodeID(row), state: .executing, failed: false, message: nil), at: now, into: &tree)
    }

    /// The program and remote id behind a local id; a program row gives its index and nil.
    package func target(of local: Int) -> (program: Int, remote: Int?)? {
        if let o = owner[local], o.program >= 0 {
            return (Int(o.program), o.remote)
        }
        if let p = programs.firstIndex(where: { $0.row == local }) { return (p, nil) }
        return nil
    }

    /// The remote ids of a program's unsettled roots (what cancelling its row cancels).
    package func liveRoots(of p: Int, in tree: TreeModel) -> [Int] {
        let row = programs[p].row
        guard tree.contains(row) else { return [] }
        return tree[row].children.compactMap { c in
            let l = Int(c)
            guard tree.contains(l), !tree[l].state.isSettled, let o = owner[l], o.program >= 0 else { return nil }
            return o.remote
        }
    }

    /// Applies what program `p`'s stream said. `now`: viewer seconds since attaching.
    package mutating func apply(_ item: StreamItem, program p: Int, tree: inout TreeModel, now: Double) {
        guard p >= 0, p < programs.count, !programs[p].status.isOver else { return }
        switch item {
        case .header(let h):
            if let name = h.name, !name.isEmpty {
                programs[p].name = String(name.prefix(200))
            } else if let producer = h.producer, !producer.isEmpty {
                programs[p].name = String(producer.prefix(200))
            }
            if let pid = h.pid { programs[p].pid = pid }
            ensureRow(p, tree: &tree, now: now)
            setStatus(p, .connected, tree: &tree, now: now)
        case .events(let events):
            for e in events { translate(e, program: p, tree: &tree, now: now) }
            // The row's bar is a pass over the roots: once per batch taken (`refreshRows`),
            // not per stretch of the stream.
            programs[p].rowStale = true
        case .snapshot(let nodes, let roots, let time):
            replace(p, nodes: nodes, roots: roots, time: time, tree: &tree, now: now)
            programs[p].awaitingSnapshot = false
            updateRowProgress(p, tree: &tree, now: now)
        case .resync(let skipped):
            programs[p].awaitingSnapshot = true
            setStatus(p, .resynced(skipped: skipped), tree: &tree, now: now)
        case .end:
            setStatus(p, .exited(rootsOutcome(p, tree: tree)), tree: &tree, now: now)
        case .error(let message):
            // Before the header: the program refuses us (the connection closes next).
            if programs[p].status == .connecting { programs[p].refusal = String(message.prefix(300)) }
        // Otherwise shown as the dashboard's message by the source.
        }
    }

    /// Works out the bars of the program rows whose programs sent events since the last
    /// call: once after each batch of stream items.
    package mutating func refreshRows(tree: inout TreeModel, now: Double) {
        for p in programs.indices where programs[p].rowStale { updateRowProgress(p, tree: &tree, now: now) }
    }

    /// The connection ended: without `end` the program was killed (or the stream broke).
    package mutating func closed(program p: Int, error: String?, tree: inout TreeModel, now: Double) {
        guard p >= 0, p < programs.count, !programs[p].status.isOver else { return }
        ensureRow(p, tree: &tree, now: now)
        let status: Status =
            if let refusal = programs[p].refusal { .refused(refusal) } else { error.map { .broken($0) } ?? .killed }
        setStatus(p, status, tree: &tree, now: now)
    }

    /// Whether every program's connection is over.
    package var allOver: Bool { !programs.isEmpty && programs.allSatisfy { $0.status.isOver } }

    /// The programs' outcome once every one is over: failed when one failed (or was killed),
    /// else cancelled when a root was cancelled, else succeeded. Nil before.
    package var outcome: RootOutcome? {
        guard allOver else { return nil }
        let all = programs.compactMap(\.status.outcome)
        if all.contains(.failed) { return .failed }
        return all.contains(.cancelled) ? .cancelled : .succeeded
    }

    /// The outcome of program `p`'s roots (the children of its row): failed when one failed,
    /// else cancelled when one was cancelled, else succeeded; nil when one has not settled.
    func rootsOutcome(_ p: Int, tree: TreeModel) -> RootOutcome? {
        let row = programs[p].row
        guard tree.contains(row) else { return .succeeded }
        var result = RootOutcome.succeeded
        for c in tree[row].children where tree.contains(Int(c)) {
            let n = tree[Int(c)]
            switch n.state {
            case .completed where n.failed: result = .failed
            case .completed: break
            case .cancelled: if result == .succeeded { result = .cancelled }
            case .notExecuted, .executing: return nil
            }
        }
        return result
    }

    // MARK: - translation

    private mutating func allocate() -> Int {
        defer { nextLocal += 1 }
        return nextLocal
    }

    private mutating func local(_ remote: Int, _ p: Int) -> Int {
        if let l = programs[p].localOf[remote] { return l }
        let l = allocate()
        programs[p].localOf[remote] = l
        owner[l] = Owner(program: Int32(p), remote: remote)
        return l
    }

    private mutating func time(_ t: Double, _ p: Int, now: Double) -> Double {
        if programs[p].clockOffset == nil { programs[p].clockOffset = t - now }
        return max(0, t - (programs[p].clockOffset ?? 0))
    }

    /// `absorb` false: the tree already holds it (a bulk load); only recorded.
    private mutating func emit(
        _ change: GraphChange, at t: Double, into tree: inout TreeModel,
        absorb: Bool = true
    ) {
        sequence &+= 1
        guard absorb || recorder != nil || stream != nil else { return }
        let e = GraphEvent(sequence: sequence, time: t, change: change)
        if absorb { tree.absorb(e) }
        recorder?.record(e)
        stream?(e)
    }

    private mutating func translate(_ e: GraphEvent, program p: Int, tree: inout TreeModel, now: Double) {
        let t = time(e.time, p, now: now)
        switch e.change {
        case .added(let id, let kind, let name, let weight, let parent, let index):
            let l = local(id.rawValue, p)
            let parentLocal = parent.flatMap { programs[p].localOf[$0.rawValue] } ?? programs[p].row
            // A program's root goes last under its row (recorded with that index, so a replay
            // of the log keeps the order).
            let rootIndex = tree.contains(parentLocal) ? tree[parentLocal].children.count : nil
            emit(
                .added(
                    id: NodeID(l), kind: kind, name: name, weight: weight, parent: NodeID(parentLocal),
                    index: parent == nil ? rootIndex : index), at: t, into: &tree)
        case .dropped(let ids):
            var locals: [NodeID] = []
            for id in ids {
                guard let l = programs[p].localOf.removeValue(forKey: id.rawValue) else { continue }
                owner[l] = nil
                locals.append(NodeID(l))
            }
            if !locals.isEmpty { emit(.dropped(ids: locals), at: t, into: &tree) }
        default:
            // Every other change is about nodes the program already named: only ids change.
            // The map is read in place: a copy taken before `added` or `dropped` changed it
            // cost a copy of the whole table per event.
            let known = programs[p].localOf
            guard let change = e.change.mappingIDs({ known[$0.rawValue].map { NodeID($0) } }) else { return }
            emit(change, at: t, into: &tree)
        }
    }

    /// A snapshot (the first one, a resync's, the program's last) brings the program's
    /// subtree up to date. The first goes into the tree in one pass; a later one is compared
    /// with what the tree has: nodes it still has keep their local ids and their times (so
    /// selection, folding and durations survive a resync), what the tree lacked is added
    /// with the program's own start and end times, outcomes missed meanwhile are recorded at
    /// the time they happened, and only nodes the program no longer has are dropped. A
    /// recording never sees the program's tree dropped and added again (truth.md).
    private mutating func replace(
        _ p: Int, nodes: [LogModel.Node], roots: [Int], time snapTime: Double,
        tree: inout TreeModel, now: Double
    ) {
        let t = time(snapTime, p, now: now)
        let row = programs[p].row
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
        for n in nodes {
            let r = Int(n.id)
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
            let n = nodes[k]
            if n.parent >= 0, let q = position(Int(n.parent)) {
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
        func start(_ n: LogModel.Node) -> Double { min(t, (n.started ?? .infinity) - offset) }
        func end(_ n: LogModel.Node) -> Double {
            let e = min(t, (n.ended ?? .infinity) - offset)
            return n.started == nil ? e : max(start(n), e)
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
                        start: start(nodes[k]), end: end(nodes[k]), tree: &tree)
                } else {
                    update(
                        localAt[k], to: nodes[k], parent: parents[o], index: indices[o], at: t,
                        start: start(nodes[k]), end: end(nodes[k]), tree: &tree)
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
    }

    /// Whether a snapshot node ran: executing or completed, or cancelled after it began (a
    /// node cancelled before it ran has no start).
    private static func began(_ n: LogModel.Node) -> Bool {
        n.state == .executing || n.state == .completed || (n.state == .cancelled && n.started != nil)
    }

    /// Whether a snapshot node's progress is worth an event (a success's implied 1 is not).
    private static func hasOwnProgress(_ n: LogModel.Node) -> Bool {
        (n.fraction > 0 || n.info != nil) && !(n.state == .completed && !n.failed && n.fraction == 1 && n.info == nil)
    }

    /// The program's whole subtree is new here (the first snapshot, or everything was
    /// dropped): it goes into the tree in one pass, as the events would leave it; they are
    /// still written to the recorder one by one, so the log is what it was.
    private mutating func addAll(
        _ nodes: [LogModel.Node], under row: Int, order: [Int], parents: [Int], indices: [Int], localAt: [Int],
        keep: [Int: Int], time t: Double, start: (LogModel.Node) -> Double, end: (LogModel.Node) -> Double,
        tree: inout TreeModel
    ) {
        let loaded = bulkNodes(
            nodes, order: order, parents: parents, localAt: localAt, keep: keep, time: t, start: start, end: end)
        let bulk = tree.canLoad(loaded, under: row)
        for (o, k) in order.enumerated() {
            let n = nodes[k]
            emit(
                .added(
                    id: NodeID(localAt[k]), kind: n.kind, name: n.name, weight: n.weight,
                    parent: NodeID(parents[o]), index: indices[o]), at: t, into: &tree, absorb: !bulk)
        }
        for k in order where nodes[k].refOf >= 0 {
            guard let of = keep[Int(nodes[k].refOf)] else { continue }
            emit(.ref(id: NodeID(localAt[k]), of: NodeID(of)), at: t, into: &tree, absorb: !bulk)
        }
        for k in order where Self.began(nodes[k]) {
            emit(
                .stateChanged(id: NodeID(localAt[k]), state: .executing, failed: false, message: nil),
                at: start(nodes[k]), into: &tree, absorb: !bulk)
        }
        for k in order.reversed() where nodes[k].state.isSettled {
            let n = nodes[k]
            emit(
                .stateChanged(id: NodeID(localAt[k]), state: n.state, failed: n.failed, message: n.message),
                at: end(n), into: &tree, absorb: !bulk)
        }
        for k in order where Self.hasOwnProgress(nodes[k]) {
            let n = nodes[k]
            emit(
                .progress(id: NodeID(localAt[k]), progress: TaskProgress(n.fraction, info: n.info)),
                at: t, into: &tree, absorb: !bulk)
        }
        if bulk { tree.load(loaded, sequence: sequence, time: t) }
    }

    /// A node the tree lacked (begun, or settled, while the viewer was behind), with its
    /// own times.
    private mutating func addOne(
        _ n: LogModel.Node, local l: Int, parent: Int, index: Int, keep: [Int: Int], at t: Double,
        start: Double, end: Double, tree: inout TreeModel
    ) {
        emit(
            .added(id: NodeID(l), kind: n.kind, name: n.name, weight: n.weight, parent: NodeID(parent), index: index),
            at: t, into: &tree)
        if n.refOf >= 0, let of = keep[Int(n.refOf)] { emit(.ref(id: NodeID(l), of: NodeID(of)), at: t, into: &tree) }
        if Self.began(n) {
            emit(.stateChanged(id: NodeID(l), state: .executing, failed: false, message: nil), at: start, into: &tree)
        }
        if Self.hasOwnProgress(n) {
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
    private mutating func update(
        _ l: Int, to n: LogModel.Node, parent: Int, index: Int, at t: Double, start: Double, end: Double,
        tree: inout TreeModel
    ) {
        let had = tree[l]
        if Int(had.parent) != parent {
            emit(.parentSet(id: NodeID(l), parent: NodeID(parent), index: index), at: t, into: &tree)
        }
        if had.name != Sanitizer.clean(n.name) { emit(.renamed(id: NodeID(l), name: n.name), at: t, into: &tree) }
        if had.weight != n.weight { emit(.weightChanged(id: NodeID(l), weight: n.weight), at: t, into: &tree) }
        if had.state == .notExecuted && Self.began(n) {
            emit(.stateChanged(id: NodeID(l), state: .executing, failed: false, message: nil), at: start, into: &tree)
        }
        let progressed = Self.hasOwnProgress(n) && (had.fraction != n.fraction || had.info != n.info)
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
    private func bulkNodes(
        _ nodes: [LogModel.Node], order: [Int], parents: [Int], localAt: [Int],
        keep: [Int: Int], time t: Double, start: (LogModel.Node) -> Double, end: (LogModel.Node) -> Double
    ) -> [TreeModel.Loaded] {
        var out: [TreeModel.Loaded] = []
        out.reserveCapacity(order.count)
        for (o, k) in order.enumerated() {
            let n = nodes[k]
            var node = TreeModel.Node()
            node.kind = n.kind
            node.name = Sanitizer.clean(n.name)
            node.weight = n.weight
            node.addedAt = t
            if n.refOf >= 0, let of = keep[Int(n.refOf)] { node.refOf = Int32(of) }
            if Self.began(n) {
                node.state = .executing
                node.startedAt = start(n)
            }
            if n.state.isSettled {
                node.state = n.state
                node.failed = n.failed
                node.message = n.failed ? n.message : nil
                node.endedAt = end(n)
                if n.state == .completed && !n.failed { node.fraction = 1 }
            }
            if Self.hasOwnProgress(n) {
                let p = TaskProgress(n.fraction, info: n.info)
                node.fraction = p.fraction
                node.info = p.info
            }
            out.append(TreeModel.Loaded(id: localAt[k], parent: parents[o], node: node))
        }
        return out
    }

    private mutating func setStatus(_ p: Int, _ status: Status, tree: inout TreeModel, now: Double) {
        programs[p].status = status
        let row = programs[p].row
        guard tree.contains(row) else { return }
        if status.isOver { stopClocks(under: row, tree: &tree, now: now) }
        switch status {
        case .exited(.succeeded):
            emit(.stateChanged(id: NodeID(row), state: .completed, failed: false, message: nil), at: now, into: &tree)
        case .exited(.cancelled):
            emit(.stateChanged(id: NodeID(row), state: .cancelled, failed: false, message: nil), at: now, into: &tree)
        case .exited(let o):
            emit(
                .stateChanged(
                    id: NodeID(row), state: .completed, failed: true,
                    message: o == nil ? "exited before its roots settled" : "a root failed"), at: now, into: &tree)
        case .killed:
            emit(
                .stateChanged(
                    id: NodeID(row), state: .completed, failed: true,
                    message: "killed: the connection dropped without end"), at: now, into: &tree)
        case .broken(let why):
            emit(.stateChanged(id: NodeID(row), state: .completed, failed: true, message: why), at: now, into: &tree)
        case .refused:
            emit(
                .stateChanged(id: NodeID(row), state: .completed, failed: true, message: status.word), at: now,
                into: &tree)
        default:
            break
        }
        updateRowProgress(p, tree: &tree, now: now)
    }

    /// Nodes still executing when their program went away stop counting time: their rows
    /// show how long they had run when last seen.
    private func stopClocks(under row: Int, tree: inout TreeModel, now: Double) {
        guard tree.contains(row) else { return }
        var stack = tree[row].children
        while let c = stack.popLast() {
            let i = Int(c)
            guard tree.contains(i) else { continue }
            if tree[i].state == .executing && tree[i].endedAt.isNaN { tree.nodes[i].endedAt = now }
            stack.append(contentsOf: tree[i].children)
        }
    }

    /// The row's bar: the weighted mean of the program's roots; its info: the status.
    private mutating func updateRowProgress(_ p: Int, tree: inout TreeModel, now: Double) {
        programs[p].rowStale = false
        let row = programs[p].row
        guard tree.contains(row) else { return }
        var sum = 0.0
        var weights = 0.0
        // Fields read in place: copying each root's node (its strings) per batch was most of
        // the viewer's time with a thousand retained roots.
        let roots = tree.nodes.read(row) { $0.children }
        for c in roots {
            let (w, f) = tree.nodes.weightAndDone(Int(c))
            sum += w * f
            weights += w
        }
        let fraction = weights > 0 ? min(1, max(0, sum / weights)) : 0
        let info = programs[p].status.word
        if tree[row].fraction == fraction && tree[row].info == info { return }
        emit(.progress(id: NodeID(row), progress: TaskProgress(fraction, info: info)), at: now, into: &tree)
    }
}

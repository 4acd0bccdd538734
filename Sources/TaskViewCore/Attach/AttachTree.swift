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

    package internal(set) var programs: [Program] = []
    /// By local id: the program index and remote id of each live node (not program rows).
    /// A dictionary, emptied as nodes are dropped: an array indexed by local id grew with
    /// every node a long-running program ever made.
    var owner: [Int: Owner] = [:]
    /// Local ids mapped to a program's node (tests: memory follows the live nodes).
    var mappedCount: Int { owner.count }

    struct Owner: Sendable {
        var program: Int32 = -1
        var remote = 0
    }
    private var nextLocal = 0
    var sequence: UInt64 = 0
    /// The program whose dropped roots a root name counts (the first to report it); another
    /// program's roots of that name count under `rootName(_:of:)`'s longer name.
    private var rootNameProgram: [String: Int] = [:]

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
        case .programUsage(let usage):
            // The program's own CPU and memory, on its row (`u`), recorded like a command's.
            guard tree.contains(programs[p].row) else { return }
            emit(.usage(id: NodeID(programs[p].row), usage: usage), at: now, into: &tree)
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

    mutating func allocate() -> Int {
        defer { nextLocal += 1 }
        return nextLocal
    }

    mutating func local(_ remote: Int, _ p: Int) -> Int {
        if let l = programs[p].localOf[remote] { return l }
        let l = allocate()
        programs[p].localOf[remote] = l
        owner[l] = Owner(program: Int32(p), remote: remote)
        return l
    }

    mutating func time(_ t: Double, _ p: Int, now: Double) -> Double {
        if programs[p].clockOffset == nil { programs[p].clockOffset = t - now }
        return max(0, t - (programs[p].clockOffset ?? 0))
    }

    /// `absorb` false: the tree already holds it (a bulk load); only recorded.
    mutating func emit(
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
        case .summary(id: nil, let root?, let summary):
            emit(.summary(id: nil, root: rootName(root, of: p), summary: summary), at: t, into: &tree)
        default:
            // Every other change is about nodes the program already named: only ids change.
            // The map is read in place: a copy taken before `added` or `dropped` changed it
            // cost a copy of the whole table per event.
            let known = programs[p].localOf
            guard let change = e.change.mappingIDs({ known[$0.rawValue].map { NodeID($0) } }) else { return }
            emit(change, at: t, into: &tree)
        }
    }

    /// The name program `p`'s dropped roots called `name` count under: `name` for the first
    /// program to report it, `name (LABEL)` for another (two replicas of one server): each
    /// program's summary replaces only its own, so the header counts every program's.
    mutating func rootName(_ name: String, of p: Int) -> String {
        guard let first = rootNameProgram[name] else {
            rootNameProgram[name] = p
            return name
        }
        return first == p ? name : "\(name) (\(programs[p].label))"
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

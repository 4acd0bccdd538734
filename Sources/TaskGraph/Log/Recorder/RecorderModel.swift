/// The recorder's copy of the graph's nodes, folded from events on its writer thread: what
/// its periodic snapshots and its summary need, as `LogModel` holds it, in about 8 bytes a
/// node (plus 16 for a node with a name) instead of about 110 (a recorded program keeps one
/// per live task, beside the graph's own record).
///
/// Columns per node, in fixed-size chunks indexed by id (graph ids are dense; no growth
/// copies). Only the window of chunks between the oldest and the newest live node exists: a
/// chunk whose nodes were all dropped (retention) is freed, so a long-running program's
/// recorder or server holds what is live, not every id it has seen, and a snapshot walks the
/// live window only. Ids past `LogModel.maxID` are not kept (their events are still written).
/// Per node: where its name is in the chunk's list of names (a retained string, shared with
/// the event; unnamed nodes take no place there), the parent, state and flags, and the kind
/// as an index into the kinds seen. What most nodes do not have lives
/// in side tables: a weight other than 1, a fraction other than what the state implies (0,
/// or 1 for a success), progress info, a failure's message, children.
struct RecorderModel {
    static let shift = 12
    static let chunkSize = 1 << shift
    static let liveBit: UInt8 = 0x80
    private static let failedBit: UInt8 = 0x40
    // A node has an entry in this side table (so a node that has none costs no hashing).
    private static let fractionBit: UInt8 = 0x20
    private static let infoBit: UInt8 = 0x10
    private static let messageBit: UInt8 = 0x08
    private static let childrenBit: UInt8 = 0x04
    private static let sideBits: UInt8 = 0x3C
    /// `Chunk.nameSlots` entry of a node without a name.
    static let noName = UInt16.max

    // Touched only by the recorder's writer (under its lock): unchecked, so each column
    // access skips the runtime's exclusivity bookkeeping.
    final class Chunk {
        /// Each node's index in `names`, or `noName` (a chunk holds at most 4,096 names).
        @exclusivity(unchecked) var nameSlots = [UInt16](
            repeating: RecorderModel.noName, count: RecorderModel.chunkSize)
        /// The non-empty names, each in the place its node took when first named (kept when
        /// the node is renamed, added again or dropped).
        @exclusivity(unchecked) var names: [String] = []
        @exclusivity(unchecked) var parents = [Int32](repeating: -1, count: RecorderModel.chunkSize)
        /// State (low 2 bits), `failedBit`, `liveBit`, and which side tables hold the node.
        @exclusivity(unchecked) var flags = [UInt8](repeating: 0, count: RecorderModel.chunkSize)
        @exclusivity(unchecked) var kinds = [UInt8](repeating: 0, count: RecorderModel.chunkSize)
        /// Live nodes in the chunk (it is freed when that drops to 0).
        @exclusivity(unchecked) var live = 0

        func name(_ k: Int) -> String {
            let slot = nameSlots[k]
            return slot == RecorderModel.noName ? "" : names[Int(slot)]
        }

        func setName(_ k: Int, _ name: String) {
            let slot = nameSlots[k]
            if slot != RecorderModel.noName {
                names[Int(slot)] = name
            } else if !name.isEmpty {
                nameSlots[k] = UInt16(names.count)
                names.append(name)
            }
        }
    }

    /// The window of chunks: `chunks[0]` holds ids from `base << shift` on. Freed chunks are
    /// nil; the window never starts with one.
    private(set) var chunks: [Chunk?] = []
    private(set) var base = 0
    /// The chunk of the largest id added: kept even when empty (the next ids go there).
    private var newest = 0
    private(set) var liveCount = 0
    private var kindNames: [String] = []
    private var extraKinds: [Int32: String] = [:]
    private var weights: [Int32: Double] = [:]
    private var fractions: [Int32: Double] = [:]
    private var infos: [Int32: String] = [:]
    private var messages: [Int32: String] = [:]
    private var children: [Int32: [Int32]] = [:]
    /// The node whose progress came last (-1: none), with that progress, not yet in
    /// `fractions` and `infos`: a node reports progress many times in a row (a scope's "N/M"
    /// changes twice per child), and each report hashed into both tables. Put there before
    /// anything else reads or changes them: the node's state, its adding again, a drop, or
    /// another node's progress.
    private var hotID: Int32 = -1
    private var hotFraction = 0.0
    private var hotInfo: String?
    /// The shared node each `ref` node stands for.
    private var refs: [Int32: Int32] = [:]
    /// The node each restart's new attempt takes the row of (`attempt` events).
    private var attempts: [Int32: Int32] = [:]
    /// When nodes began, in the log's time: a recorder's, those `noteStart` was told of
    /// (begun before its log), while they execute; a server's (`keepsTimes`), every one.
    private var starts: [Int32: Double] = [:]
    /// When settled nodes ended, in the log's time (`keepsTimes` only).
    private var ends: [Int32: Double] = [:]
    /// A server's model: every node's start and end from the events' times, so snapshots
    /// give late or resynced viewers each node's own times (truth.md).
    var keepsTimes = false
    /// Spans' attributes (the last `attributes` event of each).
    private var attributes: [Int32: [NodeAttribute]] = [:]
    /// What nodes cost (the last `usage` event of each).
    private var usages: [Int32: NodeUsage] = [:]
    /// Nodes' current warnings (`warn` events): each rule's text.
    private var warnings: [Int32: [String: String]] = [:]
    /// What retention dropped under each node (the last `summary` event of each).
    private var summaries: [Int32: ChildSummary] = [:]
    /// What retention dropped of roots, by root name (the last `summary` event of each).
    private(set) var droppedRoots: [String: ChildSummary] = [:]

    /// `keepingTimes`: a server's model (see `keepsTimes`).
    init(keepingTimes: Bool = false) { keepsTimes = keepingTimes }

    /// The nodes of `snapshot`; `startTime`: the clock time that is the log's `t = 0`, for
    /// the nodes' `GraphNode.startTime` (nil: they are not kept).
    /// `keepingTimes`: a server's model, keeping every node's times from then on.
    init(_ snapshot: GraphSnapshot, startTime: Double? = nil, keepingTimes: Bool = false) {
        keepsTimes = keepingTimes
        for id in snapshot.nodes.keys.sorted() {
            let n = snapshot.nodes[id]!
            guard let i = LogModel.kept(id.rawValue) else { continue }
            add(id.rawValue, kind: n.kind, name: n.name, weight: n.weight)
            set(i, parent: n.parent.flatMap { LogModel.kept($0.rawValue) } ?? -1)
            setState(i, n.state, failed: n.failed, message: n.message)
            setFraction(i, n.progress.fraction)
            setInfo(i, n.progress.info)
            let kids = n.children.compactMap { LogModel.kept($0.rawValue) }
            if !kids.isEmpty {
                children[i] = kids
                mark(i, RecorderModel.childrenBit, true)
            }
            if let of = n.refOf.flatMap({ LogModel.kept($0.rawValue) }) { refs[i] = of }
            if let startTime, n.state == .executing || keepsTimes, let started = n.startTime {
                starts[i] = started - startTime
            }
            if let startTime, keepsTimes, let ended = n.endTime { ends[i] = ended - startTime }
            if let list = snapshot.warnings[id] { warnings[i] = list }
            if let dropped = n.droppedChildren { summaries[i] = dropped }
        }
        droppedRoots = snapshot.droppedRoots
    }

    /// Node `id` began executing at log time `t` (written as `started` in snapshots while
    /// it executes).
    mutating func noteStart(_ id: Int, at t: Double) {
        guard contains(id) else { return }
        starts[Int32(id)] = t
    }

    // MARK: Columns

    private func chunk(_ id: Int) -> Chunk? {
        let c = (id >> RecorderModel.shift) - base
        return c >= 0 && c < chunks.count ? chunks[c] : nil
    }

    /// Chunks in the window, freed ones included (for tests: memory follows the live nodes).
    var windowChunks: Int { chunks.count }

    /// The chunk for `id`, created (and the window widened) when missing.
    private mutating func makeChunk(_ id: Int) -> Chunk {
        let ci = id >> RecorderModel.shift
        if ci > newest {
            let old = newest
            newest = ci
            if let c = chunk(old << RecorderModel.shift), c.live == 0 { free(chunkOf: old << RecorderModel.shift) }
        }
        if chunks.isEmpty {
            base = ci
        } else if ci < base { // an older block of ids still being filled (another stripe's)
            chunks.insert(contentsOf: repeatElement(nil, count: base - ci), at: 0)
            base = ci
        }
        let at = ci - base
        if at >= chunks.count { chunks.append(contentsOf: repeatElement(nil, count: at + 1 - chunks.count)) }
        if let existing = chunks[at] { return existing }
        let c = Chunk()
        chunks[at] = c
        return c
    }

    /// Frees the chunk holding `id` (its last live node was dropped) and trims the window.
    private mutating func free(chunkOf id: Int) {
        chunks[(id >> RecorderModel.shift) - base] = nil
        let lead = chunks.prefix { $0 == nil }.count
        if lead == chunks.count {
            chunks.removeAll(keepingCapacity: true)
        } else if lead > 0 {
            chunks.removeFirst(lead)
            base += lead
        }
        while chunks.last.map({ $0 == nil }) ?? false { chunks.removeLast() }
        assertInvariants() // once per freed chunk (4,096 drops)
    }

    func contains(_ id: Int) -> Bool {
        guard id >= 0, id <= LogModel.maxID, let c = chunk(id) else { return false }
        return c.flags[id & (RecorderModel.chunkSize - 1)] & RecorderModel.liveBit != 0
    }

    func parentOf(_ id: Int) -> Int {
        guard contains(id), let c = chunk(id) else { return -1 }
        return Int(c.parents[id & (RecorderModel.chunkSize - 1)])
    }

    private func state(_ i: Int32) -> TaskState {
        let c = chunk(Int(i))!
        switch c.flags[Int(i) & (RecorderModel.chunkSize - 1)] & 3 {
        case 0: return .notExecuted
        case 1: return .executing
        case 2: return .completed
        default: return .cancelled
        }
    }

    private func failed(_ i: Int32) -> Bool {
        has(i, RecorderModel.failedBit)
    }

    private func has(_ i: Int32, _ bit: UInt8) -> Bool {
        chunk(Int(i))!.flags[Int(i) & (RecorderModel.chunkSize - 1)] & bit != 0
    }

    private func mark(_ i: Int32, _ bit: UInt8, _ on: Bool) {
        let c = chunk(Int(i))!
        let k = Int(i) & (RecorderModel.chunkSize - 1)
        if on { c.flags[k] |= bit } else { c.flags[k] &= ~bit }
    }

    private mutating func setInfo(_ i: Int32, _ info: String?) {
        if let info {
            infos[i] = info
            mark(i, RecorderModel.infoBit, true)
        } else if has(i, RecorderModel.infoBit) {
            infos[i] = nil
            mark(i, RecorderModel.infoBit, false)
        }
    }

    private func impliedFraction(_ i: Int32) -> Double {
        state(i) == .completed && !failed(i) ? 1 : 0
    }

    private func fraction(_ i: Int32) -> Double {
        has(i, RecorderModel.fractionBit) ? fractions[i] ?? impliedFraction(i) : impliedFraction(i)
    }

    private mutating func setFraction(_ i: Int32, _ f: Double) {
        if f == impliedFraction(i) {
            if has(i, RecorderModel.fractionBit) {
                fractions[i] = nil
                mark(i, RecorderModel.fractionBit, false)
            }
        } else {
            fractions[i] = f
            mark(i, RecorderModel.fractionBit, true)
        }
    }

    private func set(_ i: Int32, parent: Int32) {
        chunk(Int(i))!.parents[Int(i) & (RecorderModel.chunkSize - 1)] = parent
    }

    private mutating func setState(_ i: Int32, _ state: TaskState, failed: Bool, message: String?) {
        let keep = fraction(i)
        let c = chunk(Int(i))!
        let k = Int(i) & (RecorderModel.chunkSize - 1)
        let s: UInt8
        switch state {
        case .notExecuted: s = 0
        case .executing: s = 1
        case .completed: s = 2
        case .cancelled: s = 3
        }
        let kept = RecorderModel.liveBit | RecorderModel.sideBits
        c.flags[k] = (c.flags[k] & kept) | s | (failed ? RecorderModel.failedBit : 0)
        if failed, let message {
            messages[i] = message
            c.flags[k] |= RecorderModel.messageBit
        } else if c.flags[k] & RecorderModel.messageBit != 0 {
            messages[i] = nil
            c.flags[k] &= ~RecorderModel.messageBit
        }
        setFraction(i, state == .completed && !failed ? 1 : keep)
    }

    // MARK: Changes (the `GraphFold` hooks below use these)

    /// Adds a node in its initial state (replacing a dropped or live one with that id).
    private mutating func add(_ id: Int, kind: String, name: String, weight: Double) {
        guard let i = LogModel.kept(id) else { return }
        let c = makeChunk(id)
        let k = id & (RecorderModel.chunkSize - 1)
        let old = c.flags[k]
        if old & RecorderModel.liveBit == 0 {
            liveCount += 1
            c.live += 1
        }
        c.setName(k, name)
        c.parents[k] = -1
        c.flags[k] = RecorderModel.liveBit
        if old & RecorderModel.sideBits != 0 { // a live node added again: its side entries go
            if old & RecorderModel.fractionBit != 0 { fractions[i] = nil }
            if old & RecorderModel.infoBit != 0 { infos[i] = nil }
            if old & RecorderModel.messageBit != 0 { messages[i] = nil }
            if old & RecorderModel.childrenBit != 0 { children[i] = nil }
        }
        if !extraKinds.isEmpty { extraKinds[i] = nil }
        if let known = kindNames.firstIndex(of: kind) { // a handful of kinds, compared by identity first
            c.kinds[k] = UInt8(known)
        } else if kindNames.count < 255 {
            c.kinds[k] = UInt8(kindNames.count)
            kindNames.append(kind)
        } else {
            c.kinds[k] = 255
            extraKinds[i] = kind
        }
        // Side tables are touched only when they hold something (most runs: never).
        if weight != 1 { weights[i] = weight } else if !weights.isEmpty { weights[i] = nil }
    }

    private mutating func attach(_ child: Int, to parent: Int, at index: Int) {
        guard contains(child), contains(parent) else { return }
        let old = parentOf(child)
        if old >= 0, contains(old) { removeChild(Int32(child), of: Int32(old)) }
        set(Int32(child), parent: Int32(parent))
        RecorderModel.insert(Int32(child), at: index, into: &children[Int32(parent), default: []]) // in place
        mark(Int32(parent), RecorderModel.childrenBit, true)
    }

    private static func insert(_ child: Int32, at index: Int, into list: inout [Int32]) {
        if index >= list.count {
            list.append(child)
        } else {
            list.insert(child, at: max(0, index))
        }
    }

    private mutating func removeChild(_ child: Int32, of parent: Int32) {
        guard has(parent, RecorderModel.childrenBit), var list = children.removeValue(forKey: parent) else { return }
        list.removeAll { $0 == child }
        if list.isEmpty { mark(parent, RecorderModel.childrenBit, false) } else { children[parent] = list }
    }

    /// Puts the last progress of `hotID` into the side tables (it is still live: a drop, or
    /// the node added again, puts it there first).
    private mutating func settleHot() {
        guard hotID >= 0 else { return }
        let i = hotID
        hotID = -1
        setFraction(i, hotFraction)
        setInfo(i, hotInfo)
        hotInfo = nil
    }

    // MARK: Snapshots

    /// Live nodes in ascending id order, as `LogModel` holds them.
    func liveNodesByID() -> [LogModel.Node] {
        var out: [LogModel.Node] = []
        out.reserveCapacity(liveCount)
        forEachLiveNode { out.append($0) }
        return out
    }

    /// Calls `body` with each live node in ascending id order, as `LogModel` holds it, one at a
    /// time (a snapshot of a large graph builds no array of them). Side tables are looked up
    /// only when they hold something.
    func forEachLiveNode(_ body: (LogModel.Node) -> Void) {
        for (ci, chunk) in chunks.enumerated() {
            guard let c = chunk else { continue }
            for k in 0..<RecorderModel.chunkSize where c.flags[k] & RecorderModel.liveBit != 0 {
                let i = Int32(truncatingIfNeeded: (base + ci) << RecorderModel.shift | k)
                let kind = c.kinds[k] == 255 ? extraKinds[i] ?? NodeKind.task : kindNames[Int(c.kinds[k])]
                var n = LogModel.Node(
                    id: i, kind: kind, name: c.name(k), weight: weights.isEmpty ? 1 : weights[i] ?? 1)
                n.parent = c.parents[k]
                n.state = state(i)
                n.failed = failed(i)
                n.fraction = fraction(i)
                let flags = c.flags[k]
                if flags & RecorderModel.infoBit != 0 { n.info = infos[i] }
                if flags & RecorderModel.messageBit != 0 { n.message = messages[i] }
                if flags & RecorderModel.childrenBit != 0, let kids = children[i] { n.children = kids }
                if !refs.isEmpty { n.refOf = refs[i] ?? -1 }
                if !attempts.isEmpty { n.attemptOf = attempts[i] ?? -1 }
                if !starts.isEmpty { n.started = starts[i] }
                if !ends.isEmpty { n.ended = ends[i] }
                if !attributes.isEmpty, let list = attributes[i] { n.attributes = list }
                if !usages.isEmpty { n.usage = usages[i] }
                if !warnings.isEmpty, let list = warnings[i] { n.warnings = list }
                if !summaries.isEmpty { n.droppedChildren = summaries[i] }
                if i == hotID { // as `settleHot` would leave it
                    n.fraction = hotFraction
                    n.info = hotInfo
                }
                body(n)
            }
        }
    }

    /// The figures of the `end` line, as `LogModel.summary` gives them for the same state,
    /// straight from the columns: `duration` is `lastRootSettle` (else `t`) when every root
    /// has settled, else `t`.
    func endSummary(t: Double, lastRootSettle: Double?) -> LogSummary {
        var s = LogSummary()
        var outcome = "succeeded"
        var unfinished = false
        // Kinds by index: whether each counts (`NodeKind.isCounted`; 255: see `extraKinds`).
        let counted = kindNames.map(NodeKind.isCounted)
        var skipped = SkippedNodes()
        for (ci, chunk) in chunks.enumerated() {
            guard let c = chunk else { continue }
            for k in 0..<RecorderModel.chunkSize where c.flags[k] & RecorderModel.liveBit != 0 {
                let i = Int32(truncatingIfNeeded: (base + ci) << RecorderModel.shift | k)
                let state = state(i)
                let kind = Int(c.kinds[k])
                if kind < counted.count ? counted[kind] : NodeKind.isCounted(extraKinds[i] ?? NodeKind.task) {
                    switch state {
                    case .completed: if failed(i) { s.failed += 1 } else { s.succeeded += 1 }
                    case .cancelled: s.cancelled += 1
                    case .executing: s.executing += 1
                    case .notExecuted:
                        let isSkipped = skipped.isSkipped(
                            Int(i), limit: liveCount, state: { contains($0) ? self.state(Int32($0)) : nil },
                            parent: { parentOf($0) })
                        if isSkipped { s.skipped += 1 } else { s.notExecuted += 1 }
                    }
                }
                guard c.parents[k] < 0 else { continue }
                switch state { // a root: the outcome, as `LogModel.outcome`
                case .completed: if failed(i) { outcome = "failed" }
                case .cancelled: if outcome == "succeeded" { outcome = "cancelled" }
                case .notExecuted, .executing: unfinished = true
                }
            }
        }
        s.outcome = unfinished ? "unfinished" : outcome
        s.duration = unfinished ? t : lastRootSettle ?? t
        return s
    }

    /// Writes the state as `LogModel.writeSnapshot` does. Returns the next free seq.
    func writeSnapshot(into out: inout LogBuffer, seq: UInt64, t: Double) -> UInt64 {
        // Children not in ascending id order get an explicit index (from the children table
        // alone: no pass over every node for it).
        var explicit = [Int: Int]()
        for (_, kids) in children where kids.count > 1 {
            var sorted = true
            for j in 1..<kids.count where kids[j - 1] > kids[j] {
                sorted = false
                break
            }
            if !sorted { for (j, c) in kids.enumerated() { explicit[Int(c)] = j } }
        }
        return LogModel.writeSnapshot(
            count: liveCount, explicit: explicit, forEach: { forEachLiveNode($0) }, into: &out, seq: seq, t: t,
            droppedRoots: droppedRoots)
    }
}

/// The fold, as `LogModel`'s: the same state in columns. Runs per event on the recorder's
/// writer thread (`apply` is specialized for it: no call through the protocol).
extension RecorderModel: GraphFold {
    @usableFromInline mutating func nodeAdded(
        id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double
    ) {
        guard id.rawValue >= 0, id.rawValue <= LogModel.maxID else { return }
        if id.rawValue == Int(hotID) { settleHot() }
        add(id.rawValue, kind: kind, name: name, weight: weight)
        if let parent, contains(parent.rawValue) {
            attach(id.rawValue, to: parent.rawValue, at: index ?? Int.max)
        }
    }

    @usableFromInline mutating func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double) {
        attach(id.rawValue, to: parent.rawValue, at: index)
    }

    @usableFromInline mutating func weightChanged(id: NodeID, weight: Double, time: Double) {
        if contains(id.rawValue) { weights[Int32(id.rawValue)] = weight == 1 ? nil : weight }
    }

    @usableFromInline mutating func stateChanged(
        id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double
    ) {
        guard contains(id.rawValue) else { return }
        if id.rawValue == Int(hotID) { settleHot() }
        setState(Int32(id.rawValue), state, failed: failed, message: message)
        if keepsTimes {
            if state == .executing {
                starts[Int32(id.rawValue)] = time
            } else if state.isSettled {
                ends[Int32(id.rawValue)] = time
            }
        } else if state != .executing, !starts.isEmpty {
            starts[Int32(id.rawValue)] = nil
        }
    }

    @usableFromInline mutating func progressReported(id: NodeID, progress: TaskProgress, time: Double) {
        guard contains(id.rawValue) else { return }
        let i = Int32(id.rawValue)
        if i != hotID {
            settleHot()
            hotID = i
        }
        hotFraction = progress.fraction
        hotInfo = progress.info
    }

    @usableFromInline mutating func refSet(id: NodeID, of: NodeID, time: Double) {
        guard contains(id.rawValue), of.rawValue >= 0, of.rawValue <= LogModel.maxID else { return }
        refs[Int32(id.rawValue)] = Int32(of.rawValue)
    }

    @usableFromInline mutating func attemptRecorded(id: NodeID, of: NodeID, time: Double) {
        guard contains(id.rawValue), of.rawValue >= 0, of.rawValue <= LogModel.maxID else { return }
        attempts[Int32(id.rawValue)] = Int32(of.rawValue)
    }

    @usableFromInline mutating func warned(id: NodeID, rule: String, text: String?, time: Double) {
        guard contains(id.rawValue), let i = LogModel.kept(id.rawValue) else { return }
        warnings[i, default: [:]][rule] = text
        if warnings[i]?.isEmpty == true { warnings[i] = nil }
    }

    @usableFromInline mutating func attributesSet(id: NodeID, attributes list: [NodeAttribute], time: Double) {
        guard contains(id.rawValue) else { return }
        attributes[Int32(id.rawValue)] = list.isEmpty ? nil : list
    }

    @usableFromInline mutating func usageReported(id: NodeID, usage: NodeUsage, time: Double) {
        guard contains(id.rawValue) else { return }
        usages[Int32(id.rawValue)] = usage
    }

    @usableFromInline mutating func renamed(id: NodeID, name: String, time: Double) {
        guard contains(id.rawValue), let c = chunk(id.rawValue) else { return }
        c.setName(id.rawValue & (RecorderModel.chunkSize - 1), name)
    }

    @usableFromInline mutating func summarized(id: NodeID?, root: String?, summary: ChildSummary, time: Double) {
        if let id {
            if contains(id.rawValue) { summaries[Int32(id.rawValue)] = summary }
        } else if let root {
            droppedRoots[root] = summary
        }
    }

    @usableFromInline mutating func nodesDropped(ids: [NodeID], time: Double) {
        settleHot()
        for id in ids where contains(id.rawValue) {
            let i = Int32(id.rawValue)
            let p = parentOf(id.rawValue)
            if p >= 0, contains(p) { removeChild(i, of: Int32(p)) }
            let c = chunk(id.rawValue)!
            let k = id.rawValue & (RecorderModel.chunkSize - 1)
            let old = c.flags[k]
            c.flags[k] &= ~(RecorderModel.liveBit | RecorderModel.sideBits)
            c.setName(k, "")
            c.live -= 1
            if old & RecorderModel.childrenBit != 0 { children[i] = nil }
            if old & RecorderModel.fractionBit != 0 { fractions[i] = nil }
            if old & RecorderModel.infoBit != 0 { infos[i] = nil }
            if old & RecorderModel.messageBit != 0 { messages[i] = nil }
            if !weights.isEmpty { weights[i] = nil }
            if !refs.isEmpty { refs[i] = nil }
            if !attempts.isEmpty { attempts[i] = nil }
            if !starts.isEmpty { starts[i] = nil }
            if !ends.isEmpty { ends[i] = nil }
            if !attributes.isEmpty { attributes[i] = nil }
            if !usages.isEmpty { usages[i] = nil }
            if !warnings.isEmpty { warnings[i] = nil }
            if !summaries.isEmpty { summaries[i] = nil }
            if !extraKinds.isEmpty { extraKinds[i] = nil }
            liveCount -= 1
            if c.live == 0, id.rawValue >> RecorderModel.shift < newest { free(chunkOf: id.rawValue) }
        }
    }
}

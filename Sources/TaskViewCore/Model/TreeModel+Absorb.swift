import TaskGraph
import TaskGraphProcess

extension TreeModel {
    /// Applies one event. Events about unknown nodes are ignored (a log may start late).
    package mutating func absorb(_ event: consuming GraphEvent) {
        let t = event.time
        sequence = event.sequence
        time = t
        // Taken apart, not copied: its strings move into the node instead of being retained.
        apply((consume event).change, time: t)
    }

    /// Records what is known about the command node `id` runs (ignored for unknown nodes).
    package mutating func setCommand(_ info: CommandInfo, for id: Int) {
        guard contains(id), commands[id] != info else { return }
        commands[id] = info
    }

    /// Applies events in order, the subtree counts brought up to date once at the end
    /// (`withDeferredRollUp`: linear in the events whatever the tree's depth).
    package mutating func absorb<S: Sequence>(_ events: S) where S.Element == GraphEvent {
        withDeferredRollUp { tree in
            for e in events { tree.absorb(e) }
        }
    }

    private mutating func add(_ i: Int, kind: String, name: String, weight: Double, time: Double) {
        guard i >= 0 else { return }
        ensure(i)
        if contains(i) { flushRollUp() } // its old subtree counts are read below
        let (old, oldParent, oldSubtree) = nodes.read(i) {
            ($0.exists ? ($0.display, $0.counted) : nil, Int($0.parent), $0.subtree)
        }
        if let old {
            countNode(old.0, old.1, -1)
            if oldParent >= 0 { addToAncestors(from: oldParent, SubtreeCounts() &- oldSubtree) }
        }
        // Most graphs run no commands: no hashing per added node then.
        if !outputs.isEmpty { outputs[i] = nil }
        if !commands.isEmpty { commands[i] = nil }
        if !attributes.isEmpty { attributes[i] = nil }
        if !usages.isEmpty { usages[i] = nil }
        if !warnings.isEmpty { clearWarnings(i) }
        if !runningSince.isEmpty { runningSince[i] = nil }
        if !logs.isEmpty { logs[i] = nil }
        if !logCounts.isEmpty { logCounts[i] = nil }
        var node = Node()
        node.exists = true
        node.kind = kind
        node.name = Sanitizer.clean(name)
        node.weight = weight
        node.addedAt = time
        node.counted = Self.isCounted(kind: kind)
        node.subtree = node.ownCount
        nodes[i] = node
        countNode(.notExecuted, node.counted, 1)
        structureVersion &+= 1
    }

    private mutating func appendRoot(_ i: Int) {
        let slot = Int32(rootSlots.count)
        nodes.update(i) {
            $0.parent = -1
            $0.index = slot
        }
        rootSlots.append(Int32(i))
    }

    private mutating func detach(_ i: Int) {
        let p = Int(nodes[i].parent)
        if p < 0 {
            rootTombstones += 1 // its slot in rootSlots is now stale
            if rootTombstones > 64 && rootTombstones * 2 > rootSlots.count { compactRoots() }
        } else if contains(p) {
            var kids = nodes[p].children
            nodes[p].children = []
            let at = Int(nodes[i].index)
            var from = 0
            if at < kids.count && kids[at] == Int32(i) {
                kids.remove(at: at)
                from = at // the siblings before it keep their places
            } else if let k = kids.firstIndex(of: Int32(i)) {
                // Positions not yet renumbered in this batch: a server drops its oldest
                // request, near the front of thousands of siblings.
                kids.remove(at: k)
                from = k
            }
            nodes[p].children = kids
            reindex(p, from: from)
            addToAncestors(from: p, SubtreeCounts() &- nodes.read(i) { $0.subtree })
        }
        nodes[i].parent = -1
    }

    /// Detaches several children of `p` in one pass over its list: a resync drops thousands
    /// of a program row's children at once, which one by one shifted the row's list per child.
    private mutating func detach(_ leaving: [Int], from p: Int) {
        guard leaving.count > 1 else {
            if let i = leaving.first { detach(i) }
            return
        }
        let set = Set(leaving.map { Int32($0) })
        var kids = nodes[p].children
        nodes[p].children = []
        let from = kids.firstIndex { set.contains($0) } ?? kids.count
        kids.removeAll { set.contains($0) }
        nodes[p].children = kids
        reindex(p, from: from)
        var total = SubtreeCounts()
        for i in leaving {
            total &+= nodes.read(i) { $0.subtree }
            nodes[i].parent = -1
        }
        addToAncestors(from: p, SubtreeCounts() &- total)
    }

    private mutating func attach(_ i: Int, to p: Int, at index: Int) {
        let count = nodes.read(p) { $0.children.count }
        let appended = index >= count
        let fresh = nodes.update(i) {
            $0.parent = Int32(p)
            if appended { $0.index = Int32(count) }
            return $0.state == .notExecuted && !$0.skipped
        }
        if appended {
            nodes.update(p) { $0.children.append(Int32(i)) }
        } else {
            let at = Swift.max(0, index)
            nodes.update(p) { $0.children.insert(Int32(i), at: at) }
            reindex(p, from: at)
        }
        structureVersion &+= 1
        addToAncestors(from: p, nodes.read(i) { $0.subtree })
        if fresh && nodes.read(p, { $0.state.isSettled || $0.skipped }) {
            setSkipped(i)
            markSkippedBelow(i)
        }
    }

    /// Numbers `p`'s children from `start` on: at once, or (while deferring) once for the
    /// batch, from the lowest position any change asked for.
    private mutating func reindex(_ p: Int, from start: Int) {
        if pendingRollUp != nil {
            let key = Int32(p)
            pendingReindex[key] = Swift.min(pendingReindex[key] ?? Int32.max, Int32(start))
            return
        }
        renumber(p, from: start)
    }

    /// Brings every deferred `reindex` up to date; call before reading a child's `index`
    /// inside a deferred batch.
    package mutating func flushReindex() {
        guard !pendingReindex.isEmpty else { return }
        let pending = pendingReindex
        pendingReindex = [:]
        for (p, from) in pending where contains(Int(p)) { renumber(Int(p), from: Int(from)) }
    }

    private mutating func renumber(_ p: Int, from start: Int) {
        let kids = nodes.read(p) { $0.children }
        var k = start
        while k < kids.count {
            let index = Int32(k)
            nodes.update(Int(kids[k])) { $0.index = index }
            k += 1
        }
    }

    private mutating func compactRoots() {
        var slots: [Int32] = []
        slots.reserveCapacity(rootSlots.count - rootTombstones)
        var seen = Set<Int32>()
        for s in rootSlots where isRootSlot(Int(s)) && seen.insert(s).inserted {
            nodes[Int(s)].index = Int32(slots.count)
            slots.append(s)
        }
        rootSlots = slots
        rootTombstones = 0
    }

    private mutating func setState(
        _ i: Int, _ state: TaskState, failed: Bool, message: String?,
        time: Double
    ) {
        guard contains(i) else { return }
        let (before, after, counted) = nodes.update(i) { n in
            let before = n.display
            n.state = state
            n.failed = failed
            n.message = failed ? message : nil
            switch state {
            case .executing:
                n.startedAt = time
            case .completed, .cancelled:
                n.endedAt = time
                if state == .completed && !failed { n.fraction = 1 }
            case .notExecuted:
                break
            }
            return (before, n.display, n.counted)
        }
        if state == .executing { executingOrder.append(Int32(i)) }
        if before != after && counted { recount(i, from: before, to: after) }
        if state.isSettled { markSkippedBelow(i) }
    }

    private mutating func setSkipped(_ i: Int) {
        let (before, after, counted) = nodes.update(i) { n in
            let before = n.display
            n.skipped = true
            return (before, n.display, n.counted)
        }
        if counted { recount(i, from: before, to: after) }
    }

    /// Marks every never-executed descendant reachable through never-executed nodes as
    /// skipped. Each node is marked at most once, so this is O(1) amortized per node.
    mutating func markSkippedBelow(_ i: Int) {
        guard nodes.read(i, { !$0.children.isEmpty }) else { return } // a leaf: no stack to allocate
        var stack: [Int32] = [Int32(i)]
        while let top = stack.popLast() {
            for c in nodes.read(Int(top), { $0.children }) {
                let ci = Int(c)
                guard contains(ci), nodes.read(ci, { $0.state == .notExecuted && !$0.skipped }) else { continue }
                setSkipped(ci)
                stack.append(c)
            }
        }
    }

    private mutating func drop(_ ids: [NodeID]) {
        let gone = Set(ids.map(\.rawValue))
        // No roll-up first: a delta kept at a node has reached neither it nor its ancestors,
        // so its parent's list loses the node's counts without it, and a delta kept inside
        // what goes goes with it (a server drops a request every few events of a batch).
        if pendingRollUp?.isEmpty == false {
            for i in gone { pendingRollUp![Int32(truncatingIfNeeded: i)] = nil }
        }
        let sorted = gone.sorted()
        var leaving: [Int: [Int]] = [:] // by parent: each parent's list is gone through once
        for i in sorted where contains(i) {
            let p = Int(nodes[i].parent)
            if p < 0 {
                rootTombstones += 1
            } else if contains(p) && !gone.contains(p) {
                leaving[p, default: []].append(i)
            }
        }
        for (p, children) in leaving { detach(children, from: p) }
        for i in sorted where contains(i) {
            countNode(nodes[i].display, nodes[i].counted, -1)
            nodes[i] = Node()
            // Most of these are empty for a server's requests: no hashing then.
            if !outputs.isEmpty { outputs[i] = nil }
            if !commands.isEmpty { commands[i] = nil }
            if !attributes.isEmpty { attributes[i] = nil }
            if !usages.isEmpty { usages[i] = nil }
            if !runningSince.isEmpty { runningSince[i] = nil }
            if !warnings.isEmpty { clearWarnings(i) }
            if !logs.isEmpty { logs[i] = nil }
            if !logCounts.isEmpty { logCounts[i] = nil }
            if !droppedSummaries.isEmpty { droppedSummaries[i] = nil }
        }
        structureVersion &+= 1
        if rootTombstones > 0 && rootTombstones * 2 > rootSlots.count { compactRoots() }
        nodes.noteDropped(gone.count)
    }
}

/// The dashboard's fold (`absorb` applies each event through it): besides `LogModel`'s state,
/// times, display counts, skipped nodes, output lines, attributes and attempts' rows.
extension TreeModel: GraphFold {
    @usableFromInline package mutating func nodeAdded(
        id: NodeID, kind: String, name: String, weight: Double, parent: NodeID?, index: Int?, time: Double
    ) {
        // Ids are kept as Int32 (parents, children): one beyond names no node here.
        guard id.rawValue >= 0 && id.rawValue <= Int(Int32.max) else { return }
        add(id.rawValue, kind: kind, name: name, weight: weight, time: time)
        if let parent, contains(parent.rawValue) {
            attach(id.rawValue, to: parent.rawValue, at: index ?? Int.max)
        } else {
            appendRoot(id.rawValue)
        }
    }

    @usableFromInline package mutating func parentSet(id: NodeID, parent: NodeID, index: Int, time: Double) {
        let i = id.rawValue
        let p = parent.rawValue
        // A node cannot move under itself or its own descendant (a hostile log); a leaf has
        // none, so no walk up a deep chain for it.
        guard contains(i), contains(p), i != p, nodes[i].children.isEmpty || !isAncestor(i, of: p) else { return }
        detach(i)
        attach(i, to: p, at: index)
    }

    @usableFromInline package mutating func weightChanged(id: NodeID, weight: Double, time: Double) {
        if contains(id.rawValue) { nodes.update(id.rawValue) { $0.weight = weight } }
    }

    @usableFromInline package mutating func stateChanged(
        id: NodeID, state: TaskState, failed: Bool, message: String?, time: Double
    ) {
        setState(id.rawValue, state, failed: failed, message: message, time: time)
    }

    @usableFromInline package mutating func progressReported(id: NodeID, progress: TaskProgress, time: Double) {
        let i = id.rawValue
        guard contains(i) else { return }
        let leftQueue = nodes.update(i) {
            let wasQueued = $0.info == CommandSlots.queuedInfo
            $0.fraction = progress.fraction
            $0.info = progress.info
            return wasQueued && progress.info != CommandSlots.queuedInfo
        }
        if leftQueue { runningSince[i] = time }
    }

    @usableFromInline package mutating func cancelRequested(id: NodeID, source: String, time: Double) {
        guard contains(id.rawValue) else { return }
        let (before, after, counted) = nodes.update(id.rawValue) { n in
            let before = n.display
            n.cancelSource = source
            return (before, n.display, n.counted)
        }
        if before != after && counted { recount(id.rawValue, from: before, to: after) }
    }

    @usableFromInline package mutating func outputWritten(
        id: NodeID, stream: OutputStreamName, text: String, time: Double
    ) {
        guard contains(id.rawValue) else { return }
        streamOrder += 1
        outputs[id.rawValue, default: OutputRing()].append(.init(stream: stream, text: text, order: streamOrder))
    }

    @usableFromInline package mutating func logRecorded(id: NodeID, record: NodeLogRecord, time: Double) {
        guard contains(id.rawValue) else { return }
        addLogRecord(id.rawValue, record)
    }

    @usableFromInline package mutating func refSet(id: NodeID, of: NodeID, time: Double) {
        if contains(id.rawValue), of.rawValue >= 0, of.rawValue <= Int(Int32.max) {
            nodes.update(id.rawValue) { $0.refOf = Int32(of.rawValue) }
        }
    }

    @usableFromInline package mutating func attributesSet(id: NodeID, attributes list: [NodeAttribute], time: Double) {
        guard contains(id.rawValue) else { return }
        attributes[id.rawValue] = list.isEmpty ? nil : list
    }

    @usableFromInline package mutating func attemptRecorded(id: NodeID, of: NodeID, time: Double) {
        placeAttempt(id.rawValue, of: of.rawValue)
    }

    @usableFromInline package mutating func renamed(id: NodeID, name: String, time: Double) {
        guard contains(id.rawValue) else { return }
        nodes.update(id.rawValue) { $0.name = Sanitizer.clean(name) }
        structureVersion &+= 1 // a filter matches names
    }

    @usableFromInline package mutating func nodesDropped(ids: [NodeID], time: Double) {
        drop(ids)
    }
}

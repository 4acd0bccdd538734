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

    /// Counts one event and, when somebody observes, builds it and hands it on (the change
    /// is built only then).
    @inline(__always)
    func emit(_ change: @autoclosure () -> GraphChange) {
        sequence &+= 1
        guard !observers.isEmpty else { return }
        let event = GraphEvent(sequence: sequence, time: clock.now, change: change())
        for o in observers { o.handler(event) }
    }

    func addNodeLocked(kindIndex: UInt8, name: String, weight: Double,
                       parent: Int = -1, index: Int = 0) -> Int {
        let id = table.append(NodeRecord(kindIndex: kindIndex, parent: parent, weight: weight,
                                          name: name))
        if parent >= 0, table.contains(parent) { insertChild(id, into: parent, at: index) }
        emit(.added(id: NodeID(id), kind: NodeKind.all[Int(kindIndex)], name: name, weight: weight,
                    parent: parent >= 0 ? NodeID(parent) : nil, index: parent >= 0 ? index : nil))
        return id
    }

    func setParentLocked(_ id: Int, parent: Int, index: Int) {
        // A node already dropped by retention (a finished root) is not recorded again.
        guard table.contains(id), table.contains(parent) else { return }
        table[id].parent = parent
        insertChild(id, into: parent, at: index)
        emit(.parentSet(id: NodeID(id), parent: NodeID(parent), index: index))
    }

    private func insertChild(_ id: Int, into parent: Int, at index: Int) {
        let count = table[parent].children.count
        if index >= count {
            table[parent].children.append(NodeID(id))
        } else {
            table[parent].children.insert(NodeID(id), at: max(0, index))
        }
    }

    /// Records that `id` (a `ref` node) stands for the shared node `of`.
    func setRefLocked(_ id: Int, of: Int) {
        guard table.contains(id) else { return }
        table.refs[id] = of
        emit(.ref(id: NodeID(id), of: NodeID(of)))
    }

    func setWeightLocked(_ id: Int, _ weight: Double) {
        guard table.contains(id) else { return }
        table[id].weight = weight
        emit(.weightChanged(id: NodeID(id), weight: weight))
    }

    @usableFromInline
    func setProgressLocked(_ id: Int, _ progress: TaskProgress) {
        guard table.contains(id) else { return }
        table[id].fraction = progress.fraction
        table[id].info = progress.info
        emit(.progress(id: NodeID(id), progress: progress))
    }

    func cancelRequestedLocked(_ id: Int, source: String) {
        emit(.cancelRequested(id: NodeID(id), source: cut(source)))
    }

    /// Records a state change. `retain` is the task to keep alive while executing; the
    /// returned task (the one released on settling) must be released after unlocking.
    @usableFromInline
    func setStateLocked(_ id: Int, _ state: TaskState, failed: Bool = false, message: String? = nil,
                        retain: AnyGraphTask? = nil) -> AnyGraphTask? {
        guard table.contains(id) else { return nil }
        var released: AnyGraphTask?
        let msg = message.map(cut)
        table.modify(id) { r in
            r.state = state
            r.failed = failed
            if state == .executing {
                r.retained = retain
            } else if state.isSettled {
                released = r.retained
                r.retained = nil
                if state == .completed && !failed { r.fraction = 1 }
            }
        }
        if failed, let msg { table.messages[id] = msg }
        emit(.stateChanged(id: NodeID(id), state: state, failed: failed, message: failed ? msg : nil))
        if state.isSettled, table[id].parent < 0 { rootFinishedLocked(id) }
        return released
    }

    func rootFinishedLocked(_ id: Int) {
        guard let policy = retentionPolicy else { return }
        let now = clock.now
        finishedRoots.append((id, now))
        var drop: [NodeID] = []
        while finishedRootsHead < finishedRoots.count {
            let (root, time) = finishedRoots[finishedRootsHead]
            let live = finishedRoots.count - finishedRootsHead
            let tooOld = policy.maxAge.map { now - time > $0 } ?? false
            guard live > policy.maxFinishedRoots || tooOld else { break }
            finishedRootsHead += 1
            collectSubtree(root, into: &drop)
        }
        if finishedRootsHead > 1024 && finishedRootsHead * 2 > finishedRoots.count {
            finishedRoots.removeFirst(finishedRootsHead)
            finishedRootsHead = 0
        }
        guard !drop.isEmpty else { return }
        for d in drop { table.drop(d.rawValue) }
        emit(.dropped(ids: drop))
    }

    private func collectSubtree(_ root: Int, into out: inout [NodeID]) {
        var stack = [root]
        while let id = stack.popLast() {
            guard table.contains(id) else { continue }
            // A subtree is dropped only when nothing in it runs any more.
            out.append(NodeID(id))
            for c in table[id].children { stack.append(c.rawValue) }
        }
    }
}

extension NodeTable {
    @inline(__always)
    func modify(_ id: Int, _ body: (inout NodeRecord) -> Void) {
        let chunk = chunks[id >> NodeTable.shift]!
        body(&chunk.records[id & (NodeTable.chunkSize - 1)])
    }
}

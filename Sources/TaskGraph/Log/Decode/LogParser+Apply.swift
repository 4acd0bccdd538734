/// Validation of one parsed line against the model, then its effect.
extension LogParser {
    mutating func apply(_ f: Fields, t: Double) throws {
        func need<T>(_ v: T?, _ name: String) throws -> T {
            guard let v else { throw LineError("missing \"\(name)\"") }
            return v
        }
        func existing(_ id: Int?, _ what: String = "id") throws -> Int {
            let id = try need(id, what)
            guard model.contains(id) else { throw LineError("node \(id) does not exist") }
            return id
        }
        let change: GraphChange
        switch f.ev {
        case .add:
            let id = try need(f.id, "id")
            guard !model.contains(id) else { throw LineError("node \(id) is added twice") }
            let kind = try need(f.kind, "kind")
            let name = try need(f.name, "name")
            let weight = f.weight ?? 1
            if let p = f.parent, !model.contains(p) { throw LineError("parent \(p) does not exist") }
            change = .added(
                id: NodeID(id), kind: kind, name: name, weight: weight,
                parent: f.parent.map { NodeID($0) }, index: f.parent == nil ? nil : (f.index ?? 0))
        case .parent:
            let id = try existing(f.id)
            let parent = try existing(f.parent, "parent")
            let index = try need(f.index, "index")
            try checkNoCycle(id, parent)
            change = .parentSet(id: NodeID(id), parent: NodeID(parent), index: index)
        case .weight:
            change = .weightChanged(id: NodeID(try existing(f.id)), weight: try need(f.weight, "weight"))
        case .state:
            let state = try need(f.state, "state")
            let failed = f.failed && state == .completed
            change = .stateChanged(
                id: NodeID(try existing(f.id)), state: state, failed: failed,
                message: failed ? f.message : nil)
        case .progress:
            change = .progress(
                id: NodeID(try existing(f.id)),
                progress: TaskProgress(try need(f.fraction, "fraction"), info: f.info))
        case .cancel:
            change = .cancelRequested(id: NodeID(try existing(f.id)), source: f.source ?? "")
        case .output:
            change = .output(
                id: NodeID(try existing(f.id)), stream: try need(f.stream, "stream"),
                text: try need(f.text, "text"))
        case .ref:
            // The shared node may already be dropped by retention: only the ref must exist.
            change = .ref(id: NodeID(try existing(f.id)), of: NodeID(try need(f.of, "of")))
        case .attempt:
            // The node it takes the row of may already be dropped by retention.
            change = .attempt(id: NodeID(try existing(f.id)), of: NodeID(try need(f.of, "of")))
        case .attrs:
            change = .attributes(id: NodeID(try existing(f.id)), attributes: try need(f.attrs, "attrs"))
        case .name:
            change = .renamed(id: NodeID(try existing(f.id)), name: try need(f.name, "name"))
        case .usage:
            if f.program {
                // The serving program's own CPU and memory: no node of its graph.
                programUsage = NodeUsage(cpu: try need(f.cpu, "cpu"), rss: try need(f.rss, "rss"))
                return
            }
            let id = NodeID(try existing(f.id))
            change = .usage(id: id, usage: NodeUsage(cpu: try need(f.cpu, "cpu"), rss: try need(f.rss, "rss")))
        case .warn:
            let id = NodeID(try existing(f.id))
            let rule = try need(f.rule, "rule")
            guard f.cleared || f.text != nil else { throw LineError("missing \"text\" (or \"cleared\":true)") }
            change = .warn(id: id, rule: rule, text: f.cleared ? nil : f.text)
        case .log:
            let message = try need(f.message, "message")
            guard message.utf8.count <= NodeLogRecord.maxMessageBytes + NodeLogRecord.cutMarker.utf8.count else {
                throw LineError("a log message longer than 64 KiB")
            }
            change = .log(
                id: NodeID(try existing(f.id)),
                record: NodeLogRecord(
                    level: try need(f.level, "level"), message: message, metadata: f.metadata ?? [:],
                    droppedBefore: f.dropped ?? 0))
        case .summary:
            let dropped = try need(f.droppedSummary, "dropped")
            if let id = f.id {
                change = .summary(id: NodeID(try existing(id)), root: nil, summary: dropped)
            } else {
                change = .summary(id: nil, root: try need(f.root, "id\" or \"root"), summary: dropped)
            }
        case .drop:
            let ids = try need(f.ids, "ids")
            for id in ids where !model.contains(id) { throw LineError("node \(id) does not exist") }
            change = .dropped(ids: ids.map { NodeID($0) })
        case .key:
            log.keys.append(
                ReplayKey(
                    eventCount: log.events.count, time: t, key: try need(f.key, "key"),
                    node: f.id.map { NodeID($0) }))
            return
        case .snapshot:
            try snapshotPart(f, t: t)
            return
        case .end:
            log.end = f.summary ?? ReplaySummary()
            return
        case .resync:
            resyncSkipped = f.skipped ?? 0
            return
        case .error:
            serverError = f.message ?? "error"
            return
        case .unknown, .missing:
            return // a later version's event kind: ignored
        }
        model.apply(change)
        if f.ev == .state, let own = f.state == .executing ? f.started : f.ended, own < t {
            log.events.append(change, time: t, started: own)
        } else {
            log.events.append(change, time: t)
        }
    }

    /// Making `parent` the parent of `id` must not put `id` above itself. A node without
    /// children can only be its own parent: no walk up (a walk per adoption made adopting
    /// leaves under a deep chain quadratic).
    func checkNoCycle(_ id: Int, _ parent: Int) throws {
        if id != parent, let s = model.slot(id), model.nodes[s].children.isEmpty { return }
        var p = parent
        var depth = 0
        while p >= 0 {
            if p == id { throw LineError("making \(parent) the parent of \(id) creates a cycle") }
            depth += 1
            if depth > LogReader.maxDepth { throw LineError("nesting deeper than \(LogReader.maxDepth)") }
            p = model.parentOf(p)
        }
    }

    mutating func snapshotPart(_ f: Fields, t: Double) throws {
        let part = try f.part ?? { throw LineError("missing \"part\"") }()
        let parts = try f.parts ?? { throw LineError("missing \"parts\"") }()
        let nodes = f.nodes ?? []
        guard part <= parts else { throw LineError("part \(part) of \(parts)") }
        if var p = pending {
            // Taken out, so the append below grows the one array in place instead of
            // copying every earlier part's nodes once per part.
            pending = nil
            guard part == p.next, parts == p.parts, t == p.t else {
                throw LineError("snapshot part \(part) of \(parts) does not continue part \(p.next - 1) of \(p.parts)")
            }
            p.nodes.append(contentsOf: nodes)
            p.next += 1
            pending = p
        } else {
            guard part == 1 else { throw LineError("snapshot part \(part) of \(parts) without part 1") }
            pending = PendingSnapshot(parts: parts, next: 2, t: t, nodes: nodes, droppedRoots: f.droppedRoots ?? [:])
        }
        guard let done = pending, done.next > done.parts else { return }
        pending = nil
        model = try Self.buildModel(done.nodes)
        model.droppedRoots = done.droppedRoots
        modelStale = false
        log.checkpoints.append(
            ReplayLog.Checkpoint(
                eventCount: log.events.count, time: t, nodes: done.nodes, droppedRoots: done.droppedRoots))
    }

    /// A model from snapshot nodes: ids strictly ascending, parents present, no cycles, the
    /// children ordered by `index` where the writer gave one, else by id.
    static func buildModel(_ nodes: [SnapshotNode]) throws -> LogModel {
        var model = LogModel()
        var last = -1
        // Per snapshot node, by its position (slot) in the model: memory follows the nodes
        // present, not the largest id.
        var slots: [Int] = []
        slots.reserveCapacity(nodes.count)
        for k in nodes.indices {
            let id = Int(nodes[k].node.id)
            guard id > last else { throw LineError("snapshot node ids are not ascending at node \(id)") }
            last = id
            slots.append(model.add(nodes[k].node))
        }
        // Children in `index` order where the writer gave one; the writer's are in order
        // already, so sorting is only done for a parent whose children are not.
        var indexOf = [Int](repeating: -1, count: nodes.count)
        var marked = [Bool](repeating: false, count: nodes.count)
        var parents: [Int] = []
        for k in nodes.indices {
            guard let p = nodes[k].parent else { continue }
            let id = Int(nodes[k].node.id)
            guard let ps = model.slot(p) else { throw LineError("snapshot node \(id): parent \(p) does not exist") }
            guard p != id else { throw LineError("snapshot node \(p) is its own parent") }
            model.attach(id, to: p, at: Int.max)
            if let i = nodes[k].index {
                indexOf[slots[k]] = i
                if !marked[ps] {
                    marked[ps] = true
                    parents.append(p)
                }
            }
        }
        try checkAcyclic(model, nodes)
        for p in parents {
            let children = model[p]!.children
            func key(_ offset: Int) -> Int {
                let i = model.slot(Int(children[offset])).map { indexOf[$0] } ?? -1
                return i >= 0 ? i : offset
            }
            var ordered = true
            for k in children.indices.dropFirst() where key(k) < key(k - 1) {
                ordered = false
                break
            }
            if ordered { continue }
            let sorted = children.indices.sorted { (key($0), $0) < (key($1), $1) }.map { children[$0] }
            model.setChildren(of: p, sorted)
        }
        return model
    }

    /// O(n) walk: every path upward must reach a root within `maxDepth` steps.
    static func checkAcyclic(_ model: LogModel, _ nodes: [SnapshotNode]) throws {
        // By slot: 1 on the current path, 2 known to reach a root.
        var mark = [UInt8](repeating: 0, count: model.nodes.count)
        var path: [Int] = []
        for k in nodes.indices {
            var id = Int(nodes[k].node.id)
            path.removeAll(keepingCapacity: true)
            while id >= 0, let s = model.slot(id), mark[s] != 2 {
                if mark[s] == 1 { throw LineError("snapshot nodes form a cycle at node \(id)") }
                mark[s] = 1
                path.append(s)
                if path.count > LogReader.maxDepth { throw LineError("nesting deeper than \(LogReader.maxDepth)") }
                id = model.parentOf(id)
            }
            for s in path { mark[s] = 2 }
        }
    }
}

import TaskGraph

/// Synthetic graph events for the dashboard and log workloads: a root `concurrent` with
/// groups of leaves, every node added, started, reporting progress and completing, with
/// timestamps 10 µs apart. Deterministic, so every run and every subject sees the same log.
enum EventFactory {
    /// Exactly `total` events for a graph of `nodes` nodes: progress reports fill what the
    /// structure and state changes leave (1,000,000 events for 100,000 nodes).
    static func events(nodes: Int, total: Int) -> [GraphEvent] {
        let groups = max(1, nodes / 100)
        let leaves = nodes - 1 - groups
        let fixed = 3 * nodes
        let perLeaf = max(0, (total - fixed) / max(1, leaves))
        let extra = max(0, total - fixed - perLeaf * leaves)
        return events(nodes: nodes, progressPerLeaf: perLeaf, extraProgress: extra)
    }

    /// Events for a graph of `nodes` nodes (1 root, `nodes / 100` groups, the rest leaves),
    /// with `progressPerLeaf` progress reports per leaf, plus `extraProgress` more (info
    /// changes on the first leaves). `settle: false` stops before any node completes (a graph
    /// in the middle of its run, for drawing).
    static func events(
        nodes: Int, progressPerLeaf: Int, extraProgress: Int = 0,
        settle: Bool = true
    ) -> [GraphEvent] {
        let groups = max(1, nodes / 100)
        let firstLeaf = 1 + groups
        var out: [GraphEvent] = []
        out.reserveCapacity(nodes * (3 + progressPerLeaf))
        func emit(_ change: GraphChange) {
            let seq = UInt64(out.count + 1)
            out.append(GraphEvent(sequence: seq, time: Double(seq) * 1e-5, change: change))
        }
        emit(
            .added(
                id: NodeID(rawValue: 0), kind: NodeKind.concurrent, name: "build all", weight: 1,
                parent: nil, index: nil))
        for g in 0..<groups {
            emit(
                .added(
                    id: NodeID(rawValue: 1 + g), kind: NodeKind.sequential, name: "module \(g)",
                    weight: 1, parent: NodeID(rawValue: 0), index: g))
        }
        var childCount = [Int](repeating: 0, count: groups)
        for leaf in firstLeaf..<nodes {
            let g = leaf % groups
            emit(
                .added(
                    id: NodeID(rawValue: leaf), kind: NodeKind.task, name: "compile file\(leaf).swift",
                    weight: 1, parent: NodeID(rawValue: 1 + g), index: childCount[g]))
            childCount[g] += 1
        }
        for id in 0..<nodes {
            emit(.stateChanged(id: NodeID(rawValue: id), state: .executing, failed: false, message: nil))
        }
        for step in 1...max(1, progressPerLeaf) where progressPerLeaf > 0 {
            let fraction = Double(step) / Double(progressPerLeaf + 1)
            for leaf in firstLeaf..<nodes {
                emit(.progress(id: NodeID(rawValue: leaf), progress: TaskProgress(fraction, info: nil)))
            }
        }
        for k in 0..<extraProgress {
            let leaf = firstLeaf + k % max(1, nodes - firstLeaf)
            emit(
                .progress(
                    id: NodeID(rawValue: leaf),
                    progress: TaskProgress(
                        Double(progressPerLeaf) / Double(progressPerLeaf + 1),
                        info: "step \(k)")))
        }
        guard settle else { return out }
        for leaf in firstLeaf..<nodes {
            emit(.stateChanged(id: NodeID(rawValue: leaf), state: .completed, failed: false, message: nil))
        }
        for id in (0..<firstLeaf).reversed() {
            emit(.stateChanged(id: NodeID(rawValue: id), state: .completed, failed: false, message: nil))
        }
        return out
    }
}

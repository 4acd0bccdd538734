import TaskGraph

/// What retention dropped (`summary` events): per parent and per root name, and the counts
/// of the dropped nodes, which `counts` adds so the header counts the whole run.
extension TreeModel {
    /// Adds `new` in place of `old` to the dropped counts (succeeded, failed, cancelled).
    mutating func countDropped(_ new: ChildSummary, replacing old: ChildSummary?) {
        droppedCounts[DisplayState.succeeded.rawValue] += new.succeeded - (old?.succeeded ?? 0)
        droppedCounts[DisplayState.failed.rawValue] += new.failed - (old?.failed ?? 0)
        droppedCounts[DisplayState.cancelled.rawValue] += new.cancelled - (old?.cancelled ?? 0)
    }

    /// Takes a snapshot's summaries (a viewer that joins late).
    mutating func seedSummaries(_ snapshot: GraphSnapshot) {
        for (id, n) in snapshot.nodes {
            guard let s = n.droppedChildren else { continue }
            droppedSummaries[id.rawValue] = s
            countDropped(s, replacing: nil)
        }
        for (name, s) in snapshot.droppedRoots {
            droppedRoots[Sanitizer.clean(name)] = s
            countDropped(s, replacing: nil)
        }
    }

    /// `nodeCounts` plus what retention dropped.
    var countsWithDropped: [Int] {
        droppedCounts.allSatisfy { $0 == 0 } ? nodeCounts : zip(nodeCounts, droppedCounts).map(+)
    }

    @usableFromInline package mutating func summarized(
        id: NodeID?, root: String?, summary: ChildSummary, time: Double
    ) {
        if let id {
            guard contains(id.rawValue) else { return }
            countDropped(summary, replacing: droppedSummaries[id.rawValue])
            droppedSummaries[id.rawValue] = summary
        } else if let root {
            let name = Sanitizer.clean(root)
            countDropped(summary, replacing: droppedRoots[name])
            droppedRoots[name] = summary
        }
    }
}

import TaskGraph
import TaskGraphProcess

extension WhyLine {
    /// How long one step waited before its work began: for the steps it needs (its `after`
    /// node executing before its task started) and for a job slot (its command `queued`).
    package struct Wait: Sendable, Equatable {
        /// The step: the task an `after` node guards, or the command itself.
        package var id: Int
        /// Its name (raw; sanitized when printed).
        package var name: String
        /// Seconds waited for needs.
        package var needs: Double
        /// Seconds waited for a slot.
        package var slot: Double

        /// Both waits together.
        package var total: Double { needs + slot }
    }

    /// Every step of `tree` that waited, by step id (the newest attempts, as rows show
    /// them). From what the log records anyway: an `after` node starts executing when its
    /// step is due and starts its task once the needs are met; a command reports info
    /// `queued` while it waits for a slot (`TreeModel.runningSince`: when it left the queue).
    /// A wait still going counts up to `tree.time`, or to when the node ended.
    package static func waits(in tree: TreeModel) -> [Wait] {
        var byStep: [Int: Wait] = [:]
        func add(_ id: Int, needs: Double, slot: Double) {
            let step = content(id, in: tree)
            guard needs > 0 || slot > 0, tree.isCurrent(step) else { return }
            var w = byStep[step] ?? Wait(id: step, name: tree[step].name, needs: 0, slot: 0)
            w.needs += max(0, needs)
            w.slot += max(0, slot)
            byStep[step] = w
        }
        for id in tree.nodes.ids where tree.contains(id) {
            let n = tree[id]
            guard !n.startedAt.isNaN, n.kind != TreeModel.programKind else { continue }
            let end = n.endedAt.isNaN ? tree.time : n.endedAt
            if n.kind == NodeKind.after, let r = n.children.first, tree.contains(Int(r)) {
                let began = tree[Int(r)].startedAt
                add(id, needs: (began.isNaN ? end : began) - n.startedAt, slot: 0)
            } else if n.children.isEmpty {
                // Leaves only: an adapter above a queued command reports its `queued` too.
                if let left = tree.runningSince[id] {
                    add(id, needs: 0, slot: left - n.startedAt)
                } else if n.info == CommandSlots.queuedInfo {
                    add(id, needs: 0, slot: end - n.startedAt)
                }
            }
        }
        return byStep.keys.sorted().map { byStep[$0]! }
    }
}

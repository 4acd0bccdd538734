import TaskGraph

/// One line of the report's usage lists: a node's path and its CPU seconds or peak bytes.
package struct UsageRank: Sendable, Equatable {
    package var path: String
    package var value: Double
}

extension RunReport {
    /// How many nodes each usage list names.
    package static let usageCount = 3

    /// The nodes that reported usage (commands), newest attempts only: the 3 with the most
    /// CPU time and the 3 with the largest peak RSS, largest first (ties: lower id first).
    static func usageRanks(_ tree: TreeModel) -> (cpu: [UsageRank], memory: [UsageRank]) {
        let reported = tree.usages.keys.filter { tree.contains($0) && tree.isCurrent($0) }.sorted()
        guard !reported.isEmpty else { return ([], []) }
        func top(_ value: (NodeUsage) -> Double) -> [UsageRank] {
            let ids = reported.sorted { value(tree.usages[$0]!.usage) > value(tree.usages[$1]!.usage) }
            return ids.prefix(usageCount).map {
                UsageRank(path: NodePath.of($0, in: tree), value: value(tree.usages[$0]!.usage))
            }
        }
        return (top { $0.cpu }, top { Double($0.rss) })
    }

    /// `Most CPU:` and `Most memory:` with their nodes (nothing when no node reported usage).
    var usageLines: [String] {
        guard !topCPU.isEmpty else { return [] }
        let width = min(40, (topCPU + topMemory).map { Sanitizer.clean($0.path).count }.max() ?? 0)
        func row(_ r: UsageRank, _ text: String) -> String {
            let path = Sanitizer.clean(r.path)
            return "  " + path + String(repeating: " ", count: max(0, width - path.count)) + "  " + text
        }
        return ["Most CPU:"] + topCPU.map { row($0, Format.cpuSeconds($0.value)) } + ["Most memory:"]
            + topMemory.map { row($0, Format.bytes(Int($0.value))) }
    }

    /// `,"cpu":[{"path","seconds"}],"memory":[{"path","bytes"}]`.
    func writeUsage(to w: inout JSONWriter) {
        w.raw(",\"cpu\":")
        w.list(topCPU) { w, r in
            w.raw("{\"path\":")
            w.string(r.path)
            w.raw(",\"seconds\":")
            w.double(r.value)
            w.raw("}")
        }
        w.raw(",\"memory\":")
        w.list(topMemory) { w, r in
            w.raw("{\"path\":")
            w.string(r.path)
            w.raw(",\"bytes\":")
            w.int(Int(r.value))
            w.raw("}")
        }
    }
}

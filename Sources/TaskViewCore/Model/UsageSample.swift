import TaskGraph

/// A node's newest `usage` event, with the rate its CPU time grew at since the one before
/// (what a running row shows as a percentage).
package struct UsageSample: Sendable, Equatable {
    package var usage: NodeUsage
    /// When it was reported (the graph's clock).
    package var time: Double
    /// CPU seconds per second since the previous report (1 = one core busy); nil after the
    /// first report.
    package var rate: Double?

    package init(usage: NodeUsage, time: Double, rate: Double? = nil) {
        self.usage = usage
        self.time = time
        self.rate = rate
    }

    /// The sample after `next` arrives at `time`.
    package func followed(by next: NodeUsage, at time: Double) -> UsageSample {
        let dt = time - self.time
        let rate = dt > 0 ? max(0, next.cpu - usage.cpu) / dt : self.rate
        return UsageSample(usage: next, time: time, rate: rate)
    }
}

/// What a row's `CPU` and `RSS` columns show: its node's own usage, or for a group the sum
/// of the CPU time below it and the largest peak below it.
package struct UsageTotal: Sendable, Equatable {
    /// CPU seconds of the subtree.
    package var cpu = 0.0
    /// The largest peak RSS in the subtree, in bytes.
    package var rss = 0
    /// CPU seconds per second of the subtree's running nodes (nil: none reported a rate).
    package var rate: Double?

    package init(cpu: Double = 0, rss: Int = 0, rate: Double? = nil) {
        self.cpu = cpu
        self.rss = rss
        self.rate = rate
    }

    mutating func add(_ other: UsageTotal) {
        cpu += other.cpu
        rss = max(rss, other.rss)
        if let r = other.rate { rate = (rate ?? 0) + r }
    }
}

extension TreeModel {
    @usableFromInline package mutating func usageReported(id: NodeID, usage: NodeUsage, time: Double) {
        guard contains(id.rawValue) else { return }
        let i = id.rawValue
        usages[i] = usages[i].map { $0.followed(by: usage, at: time) } ?? UsageSample(usage: usage, time: time)
    }

    /// Every node's `UsageTotal` that has usage in its subtree: its own, added to each of
    /// its ancestors (group rows sum CPU and show the largest peak). A rate counts only
    /// while its node executes. Costs the reporting nodes times their depth.
    package func usageTotals() -> [Int: UsageTotal] {
        var out: [Int: UsageTotal] = [:]
        for (id, sample) in usages where contains(id) {
            let running = nodes[id].state == .executing
            let own = UsageTotal(cpu: sample.usage.cpu, rss: sample.usage.rss, rate: running ? sample.rate : nil)
            var i = id
            var steps = 0
            while i >= 0 && contains(i) && steps < 100_000 {
                out[i, default: UsageTotal()].add(own)
                i = Int(nodes[i].parent)
                steps += 1
            }
        }
        return out
    }
}

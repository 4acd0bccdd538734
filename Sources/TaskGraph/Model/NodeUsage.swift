/// What a node costs: the CPU time and the peak resident memory of what it ran (a command
/// node's whole process tree, see `Graph.reportUsage(_:_:)`), as a `usage` event records it.
public struct NodeUsage: Sendable, Equatable, Hashable {
    /// CPU time used so far, user plus system, in seconds.
    public var cpu: Double
    /// The largest resident set size seen so far, in bytes (the sum over the tree's
    /// processes at one moment).
    public var rss: Int

    /// A usage of `cpu` seconds and `rss` bytes (negative or non-finite values become 0).
    public init(cpu: Double, rss: Int) {
        self.cpu = cpu.isFinite && cpu > 0 ? cpu : 0
        self.rss = max(0, rss)
    }
}

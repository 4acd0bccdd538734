/// The groups of taskview's scenarios that go on past failures: `-k` (`--keep-going`) and
/// children marked `allowFailure`.
extension GraphTask {
    /// A `sequential` (or, with `concurrently`, a `concurrent`) in its `combine:` form whose
    /// children at `tolerated` (indexes) may fail as if they had succeeded; with `keepGoing`
    /// it runs every child whatever fails (no fail-fast cancel) and then fails with the first
    /// failure (is cancelled when a child was cancelled and none failed). `combine` gets the
    /// successes' values in order.
    package static func keepingOn(
        _ tasks: [GraphTask], concurrently: Bool, keepGoing: Bool, tolerated: Set<Int>,
        name: String? = nil, graph: Graph? = nil, combine: @escaping @Sendable ([Success]) -> Success
    ) -> GraphTask {
        group(
            concurrently ? .concurrent : .sequential,
            kindIndex: concurrently ? KindIndex.concurrent : KindIndex.sequential, tasks, name: name, graph: graph,
            tolerance: GroupTolerance(keepGoing: keepGoing, tolerated: tolerated), combine: combine)
    }
}

/// What to run, from the command line.
struct Config {
    /// A fast smoke run (smaller N, fewer rounds, shallower depth probe) for CI.
    var quick = false
    /// Workload groups to run (W1...W5, depth, view, scale); nil runs all.
    var only: Set<String>?
    /// Rounds per workload; nil uses the default for the mode.
    var runs: Int?
    /// Only subjects whose name contains this (case-insensitive), e.g. for profiling one.
    var subject: String?

    func wantsSubject(_ name: String) -> Bool {
        guard let subject else { return true }
        return name.lowercased().contains(subject.lowercased())
    }

    static let groups = ["W1", "W2", "W3", "W4", "W5", "depth", "view", "scale"]

    func wants(_ group: String) -> Bool { only?.contains(group.lowercased()) ?? true }

    /// Rounds for a workload whose full-mode default is `full`.
    func rounds(full: Int) -> Int { runs ?? (quick ? 3 : full) }

    /// `full` items, a tenth of them in quick mode.
    func size(_ full: Int) -> Int { quick ? full / 10 : full }
}

/// Runs every selected timed workload (not the depth probe) and returns the table's rows.
/// Nonisolated: it runs on the harness's big-stack thread, not on the main actor.
enum Suite {
    static func runTimed(_ config: Config, runner: Runner) -> [Row] {
        var rows: [Row] = []
        for var workload in LibrarySuite.workloads(config)
            + ViewSuite.workloads(config, budget: runner.budgetPerCase)
            + ScaleSuite.workloads(config)
        {
            // An exact name picks one subject ("GraphTask"); otherwise any name containing it.
            let exact = workload.cases.filter { $0.subject.lowercased() == config.subject?.lowercased() }
            workload.cases = exact.isEmpty ? workload.cases.filter { config.wantsSubject($0.subject) } : exact
            if !workload.cases.isEmpty { rows += runner.run(workload) }
        }
        return rows
    }
}

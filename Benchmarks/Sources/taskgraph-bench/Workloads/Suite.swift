/// Runs every selected timed workload (not the depth probe) and returns the table's rows.
/// Nonisolated: it runs on the harness's big-stack thread, not on the main actor.
enum Suite {
    static func runTimed(_ config: Config, runner: Runner) -> [Row] {
        var rows: [Row] = []
        for var workload in LibrarySuite.workloads(config) + ViewSuite.workloads(config) {
            workload.cases = workload.cases.filter { config.wantsSubject($0.subject) }
            if !workload.cases.isEmpty { rows += runner.run(workload) }
        }
        return rows
    }
}

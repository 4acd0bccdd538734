import Glibc

/// One line of the final table.
struct Row {
    let workload: Workload
    let subject: String
    let kind: SubjectKind
    let stats: Stats?
    let note: String
    /// The subject did not finish within its time limit: a MISS without a figure.
    var timedOut = false
}

/// Runs workloads in interleaved rounds and collects their rows.
struct Runner {
    /// Prints what is running to stderr, so a long run shows it is alive.
    var verbose = true
    /// Wall seconds one subject may spend on a workload's rounds: once spent, that subject
    /// stops repeating (after at least one timed run), so a slow subject cannot stretch the
    /// suite past its time limit. Its row shows how many runs it got.
    var budgetPerCase: Double = 6

    func run(_ workload: Workload) -> [Row] {
        if let isolated = workload.isolated, let c = workload.cases.first {
            progress("\(workload.id): \(workload.title) (in a child process)")
            let start = now()
            let values = isolated()
            progress("  \(workload.id) took \(Report.sig3(now() - start)) s")
            return [
                Row(
                    workload: workload, subject: c.subject, kind: c.kind,
                    stats: values.flatMap { Stats($0) }, note: values == nil ? workload.timeoutNote : "",
                    timedOut: values == nil)
            ]
        }
        let cases = workload.cases
        var values = Array(repeating: [Double](), count: cases.count)
        var unavailable = Array(repeating: false, count: cases.count)
        let start = now()
        progress("\(workload.id): \(workload.title)")
        if workload.warmUp {
            for (i, c) in cases.enumerated() where c.run(Swift.max(1, workload.n / 10)) == nil {
                unavailable[i] = true
            }
        }
        var spent = Array(repeating: 0.0, count: cases.count)
        for round in 0..<workload.runs {
            for (i, c) in cases.enumerated() where !unavailable[i] && (round == 0 || spent[i] < budgetPerCase) {
                let t0 = now()
                let v = c.run(workload.n)
                if let v { values[i].append(v) } else { unavailable[i] = true }
                spent[i] += now() - t0
                if ProcessInfoLite.verboseTiming {
                    progress(
                        "    \(c.subject): \(Report.sig3(now() - t0)) s, measured \(v.map { Report.sig3($0 * 1e6) } ?? "-") µs"
                    )
                }
            }
            progress("  round \(round + 1)/\(workload.runs) done")
        }
        progress("  \(workload.id) took \(Report.sig3(now() - start)) s")
        return cases.enumerated().map { i, c in
            Row(
                workload: workload, subject: c.subject, kind: c.kind,
                stats: unavailable[i] ? nil : Stats(values[i]),
                note: unavailable[i] ? c.unavailable : "")
        }
    }

    func progress(_ line: String) {
        guard verbose else { return }
        printError(line + "\n")
    }
}

/// BENCH_VERBOSE=1 prints how long each subject's run took (to tune the suite's duration).
enum ProcessInfoLite {
    static let verboseTiming = getenv("BENCH_VERBOSE") != nil
}

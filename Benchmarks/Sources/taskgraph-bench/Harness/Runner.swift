import Glibc

/// One line of the final table.
struct Row {
    let workload: Workload
    let subject: String
    let kind: SubjectKind
    let stats: Stats?
    let note: String
}

/// Runs workloads in interleaved rounds and collects their rows.
struct Runner {
    /// Prints what is running to stderr, so a long run shows it is alive.
    var verbose = true

    func run(_ workload: Workload) -> [Row] {
        let cases = workload.cases
        var values = Array(repeating: [Double](), count: cases.count)
        var unavailable = Array(repeating: false, count: cases.count)
        progress("\(workload.id): \(workload.title)")
        if workload.warmUp {
            for (i, c) in cases.enumerated() where c.run(Swift.max(1, workload.n / 10)) == nil {
                unavailable[i] = true
            }
        }
        for round in 0..<workload.runs {
            for (i, c) in cases.enumerated() where !unavailable[i] {
                if let v = c.run(workload.n) { values[i].append(v) } else { unavailable[i] = true }
            }
            progress("  round \(round + 1)/\(workload.runs) done")
        }
        return cases.enumerated().map { i, c in
            Row(workload: workload, subject: c.subject, kind: c.kind,
                stats: unavailable[i] ? nil : Stats(values[i]),
                note: unavailable[i] ? c.unavailable : "")
        }
    }

    func progress(_ line: String) {
        guard verbose else { return }
        printError(line + "\n")
    }
}

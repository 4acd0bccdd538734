/// S1-S8: W1's job (create + execute + complete + 1 handler) on T = 1, 2, 4, 8 threads at
/// once, each thread running its own independent tasks: GraphTask on one shared graph and
/// with a graph per thread (each plain and with a recorder), Swift tasks and the minimal
/// future. Rows are throughput (tasks per second, all threads together); `summary` adds
/// each subject's ratio to its own T = 1 figure.
enum ScaleSuite {
    static let threadCounts = [1, 2, 4, 8]

    static func workloads(_ config: Config) -> [Workload] {
        guard config.wants("scale") else { return [] }
        return threadCounts.map { threads in
            Workload(
                id: "S\(threads)",
                title: "W1 on \(threads) thread\(threads == 1 ? "" : "s") at once, all threads together",
                n: config.size(200_000), measure: .rate(unit: "tasks"), target: nil,
                runs: config.rounds(full: 5),
                cases: cases(threads: threads))
        }
    }

    private static func cases(threads: Int) -> [Case] {
        GTScale.cases(threads: threads) + [
            Case(subject: "Swift Concurrency", kind: .peer) { n in
                ScaleSubjects.swift(threads: threads, perThread: n)
            },
            Case(subject: "minimal locked future (floor)", kind: .floor) { n in
                ScaleSubjects.mini(threads: threads, perThread: n)
            },
        ]
    }

    /// Each subject's throughput at T threads divided by its throughput at 1 thread.
    static func summary(_ rows: [Row]) -> String? {
        let scale = rows.filter { $0.workload.id.hasPrefix("S") && Int($0.workload.id.dropFirst()) != nil }
        guard !scale.isEmpty else { return nil }
        var subjects: [String] = []
        for r in scale where !subjects.contains(r.subject) { subjects.append(r.subject) }
        var lines = [
            "| Subject | " + threadCounts.map { "T=\($0)" }.joined(separator: " | ") + " |",
            "|---|" + threadCounts.map { _ in "---:|" }.joined(),
        ]
        for s in subjects {
            func median(_ t: Int) -> Double? {
                scale.first { $0.subject == s && $0.workload.id == "S\(t)" }?.stats?.median
            }
            let base = median(1)
            let cells = threadCounts.map { t -> String in
                guard let m = median(t), let base, m > 0 else { return "n/a" }
                return Report.format(m, .rate(unit: "tasks")) + " (" + Report.format2(base / m) + "×)"
            }
            lines.append("| \(s) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}

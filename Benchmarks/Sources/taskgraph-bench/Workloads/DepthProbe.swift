import Glibc

/// How deep a chain (W2's links) each subject survives on the default stack. Each depth runs
/// in a child process on its main thread, so a stack overflow is a result, not the end of
/// the run. Depths step 1k, 10k, 100k, 1M and stop at the first failure.
enum DepthProbe {
    static let subjects = ["graphtask", "swift", "opencombine", "minifuture"]
    static let names = [
        "graphtask": "GraphTask", "swift": "Swift Concurrency",
        "opencombine": "OpenCombine 0.14", "minifuture": "minimal locked future (floor)",
    ]

    struct Result {
        let subject: String
        /// (depth, outcome, seconds) for each depth tried, in order.
        let steps: [(depth: Int, outcome: ChildOutcome, seconds: Double)]
        var deepest: Int? { steps.last { $0.outcome.succeeded }?.depth }
    }

    /// Seconds a child may take before it is killed and its depth reported as "timeout": the
    /// probe is about the stack, and a slow subject must not stretch the suite.
    static func timeout(quick: Bool) -> Double { quick ? 10 : 15 }

    static func depths(quick: Bool) -> [Int] {
        quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000]
    }

    /// Runs the probe for every subject (parent side).
    static func run(quick: Bool, log: Runner) -> [Result] {
        log.progress("depth: deepest chain each subject survives on the default stack")
        return subjects.map { subject in
            var steps: [(Int, ChildOutcome, Double)] = []
            for depth in depths(quick: quick) {
                let (outcome, secs) = runSelf(
                    ["--probe-chain", subject, String(depth)],
                    timeout: timeout(quick: quick))
                steps.append((depth, outcome, secs))
                log.progress("  \(names[subject]!) at \(depth): \(outcome.text)")
                if !outcome.succeeded { break }
            }
            return Result(subject: subject, steps: steps)
        }
    }

    /// The child side: builds, runs and releases one chain on this thread; exit status 0 when
    /// it computed the right value.
    static func child(subject: String, depth: Int) -> Never {
        let value: Int
        switch subject {
        case "graphtask": value = GT.chain(depth: depth)
        case "swift": value = blockingAwait { await SwiftConcurrencySubject.chain(depth: depth) }
        case "opencombine": value = OpenCombineSubject.chain(depth: depth)
        case "minifuture": value = MiniFutureSubject.chain(depth: depth)
        default:
            printError("unknown probe subject \(subject)\n")
            exit(2)
        }
        exit(value == depth ? 0 : 3)
    }

    /// The default stack the probe ran with (the main thread's, from `ulimit -s`).
    static func stackLimitText() -> String {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_STACK.rawValue), &limit)
        if limit.rlim_cur == rlim_t.max { return "unlimited" } // RLIM_INFINITY does not import
        return "\(limit.rlim_cur / 1024 / 1024) MiB"
    }

    static func table(_ results: [Result], quick: Bool) -> String {
        let ds = depths(quick: quick)
        var lines = [
            "| Subject (main thread, stack \(stackLimitText())) | " + ds.map(label).joined(separator: " | ")
                + " | deepest survived |",
            "|---|" + String(repeating: "---|", count: ds.count + 1),
        ]
        for r in results {
            let cells = ds.map { d -> String in
                guard let s = r.steps.first(where: { $0.depth == d }) else { return "not tried" }
                if s.outcome == .timedOut { return "timeout (> \(Int(timeout(quick: quick))) s)" }
                return s.outcome.succeeded ? "ok (\(Report.sig3(s.seconds)) s)" : s.outcome.text
            }
            let deepest = r.deepest.map { "≥ " + label($0) } ?? "< \(label(ds[0]))"
            lines.append("| \(names[r.subject]!) | " + cells.joined(separator: " | ") + " | \(deepest) |")
        }
        return lines.joined(separator: "\n")
    }

    static func label(_ depth: Int) -> String {
        depth >= 1_000_000 ? "\(depth / 1_000_000)M" : "\(depth / 1_000)k"
    }
}

import Glibc

// taskgraph-bench: GraphTask against Swift Concurrency, OpenCombine and a minimal future, in
// the same run, so every figure can be read as a ratio that holds on a noisy machine.

let usage = """
    USAGE: taskgraph-bench [--quick] [--only <groups>] [--runs <n>]

    Runs the benchmark suite and prints one Markdown table: median, min and max per subject
    and workload, GraphTask's median divided by each peer's, and each target with PASS/MISS.
    Build in release mode: swift run -c release --package-path Benchmarks taskgraph-bench

    OPTIONS:
      --quick            Smoke run for CI: N/10, 3 rounds, depth probe up to 100k (~30 s).
      --only <groups>    Comma-separated subset of: W1,W2,W3,W4,W5,depth,view,scale.
                         scale: W1 on 1, 2, 4, 8 threads at once (S1-S8), with a table
                         of each subject's throughput ratio to its own 1-thread figure.
      --runs <n>         Rounds per workload (default 7, W4 1; quick 3, W4 1). A subject
                         stops repeating once it has used 4 s (quick: 1.5 s) on a workload.
      --subject <text>   Only subjects whose name contains <text> (e.g. for a profiler).
      -h, --help         Show this help.
    """

func fail(_ message: String) -> Never {
    printError("taskgraph-bench: \(message)\n\(usage)\n")
    exit(2)
}

func parse(_ args: [String]) -> Config {
    var config = Config()
    var i = 0
    while i < args.count {
        switch args[i] {
        case "--quick":
            config.quick = true
        case "--only":
            i += 1
            guard i < args.count else { fail("--only needs a list of groups") }
            let wanted = args[i].split(separator: ",").map { $0.lowercased() }
            let known = Set(Config.groups.map { $0.lowercased() })
            for w in wanted where !known.contains(w) { fail("unknown group '\(w)' in --only") }
            config.only = Set(wanted)
        case "--runs":
            i += 1
            guard i < args.count, let n = Int(args[i]), n >= 1 else { fail("--runs needs a number >= 1") }
            config.runs = n
        case "--subject":
            i += 1
            guard i < args.count, !args[i].isEmpty else { fail("--subject needs a name") }
            config.subject = args[i]
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            fail("unknown argument '\(args[i])'")
        }
        i += 1
    }
    return config
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--probe-chain" {
    guard arguments.count == 3, let depth = Int(arguments[2]) else { fail("--probe-chain SUBJECT DEPTH") }
    DepthProbe.child(subject: arguments[1], depth: depth)
}
if arguments.first == "--view-child" {
    guard arguments.count == 6, let rounds = Int(arguments[3]), let budget = Double(arguments[4]) else {
        fail("--view-child ID quick|full ROUNDS BUDGET OUTFILE")
    }
    ViewSuite.child(
        id: arguments[1], quick: arguments[2] == "quick", rounds: rounds, budget: budget,
        out: arguments[5])
}
let config = parse(arguments)
let runner = Runner(budgetPerCase: config.quick ? 1.5 : 4)
let started = now()
// 1 GiB stack: subjects that recurse per link can still be timed on long chains.
let rows = runOnThread(stackBytes: 1 << 30) { Suite.runTimed(config, runner: runner) }
let depthResults = config.wants("depth") ? DepthProbe.run(quick: config.quick, log: runner) : []

print("## taskgraph-bench\(config.quick ? " --quick" : "")")
print("")
print(Machine.description())
print("")
if !rows.isEmpty {
    print(Report.table(rows))
    print("")
}
if let scale = ScaleSuite.summary(rows) {
    print("Scaling (throughput of all threads together, and its ratio to 1 thread):")
    print("")
    print(scale)
    print("")
}
if !depthResults.isEmpty {
    print("Deepest chain on the default stack (W2's links, one child process per depth):")
    print("")
    print(DepthProbe.table(depthResults, quick: config.quick))
    print("")
}
print("Total time: \(Report.sig3(now() - started)) s")

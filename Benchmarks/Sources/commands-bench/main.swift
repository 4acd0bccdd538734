// commands-bench: what running commands as graph nodes costs (issue 9 targets).
//
//     swift run -c release --package-path Benchmarks commands-bench [--quick]
//
// 1. 1,000 short commands (`/bin/true`) as GraphTask.command nodes in a `concurrent` of
//    16 at a time (maxConcurrent: 16), against the same 1,000 run by a plain shell loop
//    (one after another) and by `xargs -P16` (16 at a time): time per command, and the ratio.
// 2. Output throughput: one command printing 1,000,000 lines (`seq`), read line by line into
//    progress info and `output` events, with an observer that counts every event (what a
//    dashboard or recorder attaches): lines per second.
// 3. A whole `taskview run --headless -j 8` process running a scenario of 1,000 `true`
//    commands, against `make -j8` running the same 1,000 recipes and `xargs -P8`
//    (targets: at most 1.5× make, 3× xargs). The taskview binary is
//    $TASKVIEW_BIN, else .build/release/taskview of the project (`swift build -c release
//    --product taskview`); without one, C3 is skipped.
// 4. C4, 5. C5: the targeted costs of a 2,000-command DAG's start and of 8 commands'
//    output flood (DAGStart.swift, OutputFlood.swift); `--only C4,C5` runs just those.
import Foundation
import TaskGraph
import TaskGraphProcess

let quick = CommandLine.arguments.contains("--quick")
let commands = quick ? 200 : 1_000
let lines = quick ? 200_000 : 1_000_000
let rounds = quick ? 2 : 5
let selection = Selection(CommandLine.arguments)
if !selection.classic {
    pipelineWorkloads(selection, binary: taskviewBinary(), quick: quick)
    exit(0)
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

/// Seconds a `/bin/sh -c SCRIPT` takes, waited for with waitpid.
func shell(_ script: String) -> Double {
    let start = now()
    var pid: pid_t = 0
    let args: [String] = ["/bin/sh", "-c", script]
    let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { fatalError("cannot spawn /bin/sh") }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return now() - start
}

func graphRun(_ n: Int) -> Double {
    let graph = Graph()
    let tasks = (0..<n).map { i in GraphTask.command(["/bin/true"], name: "true \(i)", graph: graph) }
    let start = now()
    let all = GraphTask.concurrent(tasks, maxConcurrent: 16, name: "all")
    guard case .success = all.wait(timeout: 600) else { fatalError("a command failed") }
    return now() - start
}

final class Counter: @unchecked Sendable { // touched only by the observer (never concurrently)
    var outputs = 0
}

func throughput(_ n: Int) -> (seconds: Double, outputs: Int) {
    let graph = Graph()
    let counter = Counter()
    let observation = graph.observe { event in
        if case .output = event.change { counter.outputs += 1 }
    }
    let t = GraphTask.command(["seq", String(n)], name: "seq", graph: graph)
    let start = now()
    guard case .success = t.wait(timeout: 600) else { fatalError("seq failed") }
    let seconds = now() - start
    graph.flushObservers()
    observation.cancel()
    return (seconds, counter.outputs)
}

/// The project's taskview binary for C3, nil when there is none.
func taskviewBinary() -> String? {
    if let env = ProcessInfo.processInfo.environment["TASKVIEW_BIN"] { return env }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let path = root + "/.build/release/taskview"
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}

/// C3's files: a scenario and a Makefile of `n` commands each, in a new directory.
func pipelineFiles(_ n: Int) -> String {
    let dir = NSTemporaryDirectory() + "commands-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let kids = (0..<n).map { #"{"kind":"command","name":"t\#($0)","run":["true"]}"# }
    let scenario = #"{"kind":"concurrent","name":"all","children":["# + kids.joined(separator: ",") + "]}"
    try? scenario.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
    var make = ".PHONY: all " + (0..<n).map { "t\($0)" }.joined(separator: " ") + "\nall:"
    for i in 0..<n { make += " t\(i)" }
    make += "\n"
    for i in 0..<n { make += "t\(i):\n\t@true\n" }
    try? make.write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
    return dir
}

print("commands-bench: \(commands) commands, \(lines) lines, \(rounds) rounds")
var g: [Double] = []
var loop: [Double] = []
var par: [Double] = []
for r in 1...rounds {
    g.append(graphRun(commands))
    loop.append(shell("i=0; while [ $i -lt \(commands) ]; do /bin/true; i=$((i+1)); done"))
    par.append(shell("seq \(commands) | xargs -P16 -n1 /bin/true"))
    print("  round \(r)/\(rounds) done")
}
var tp: [Double] = []
var seen = 0
for _ in 1...rounds {
    let (s, outputs) = throughput(lines)
    tp.append(Double(lines) / s)
    seen = outputs
}
var viaTaskview: [Double] = []
var viaMake: [Double] = []
var viaXargs: [Double] = []
let binary = taskviewBinary()
if let binary {
    let dir = pipelineFiles(commands)
    for _ in 1...rounds {
        viaTaskview.append(
            shell("cd '\(dir)' && '\(binary)' run s.json --headless --no-record --no-history -j 8 >/dev/null"))
        viaMake.append(shell("make -s -j8 -C '\(dir)' all >/dev/null"))
        viaXargs.append(shell("seq \(commands) | xargs -P8 -n1 true"))
    }
    try? FileManager.default.removeItem(atPath: dir)
} else {
    print("C3 skipped: no taskview binary (set TASKVIEW_BIN or run swift build -c release --product taskview)")
}
let per = { (xs: [Double]) in median(xs) / Double(commands) * 1e6 }
print(
    """

    | Workload | Subject | median per command | ratio |
    |---|---|---:|---:|
    | C1 \(commands) × /bin/true, 16 at a time | GraphTask.command in concurrent(maxConcurrent: 16) | \(String(format: "%.0f", per(g))) µs | |
    | | plain shell loop, one after another | \(String(format: "%.0f", per(loop))) µs | \(String(format: "%.2f", median(g) / median(loop)))× |
    | | xargs -P16 | \(String(format: "%.0f", per(par))) µs | \(String(format: "%.2f", median(g) / median(par)))× |

    | Workload | median | target |
    |---|---:|---|
    | C2 output of one command, \(lines) lines, observed (\(seen) output events) | \(String(format: "%.0f", median(tp) / 1000))k lines/s | >= 500k lines/s: \(median(tp) >= 500_000 ? "PASS" : "MISS") |
    """)
if binary != nil {
    let vsMake = median(viaTaskview) / median(viaMake)
    let vsXargs = median(viaTaskview) / median(viaXargs)
    print(
        """

        | C3 \(commands) × true, 8 at a time, whole process | median | taskview ÷ this | target |
        |---|---:|---:|---|
        | taskview run --headless -j 8 | \(String(format: "%.3f", median(viaTaskview))) s | | |
        | make -j8 | \(String(format: "%.3f", median(viaMake))) s | \(String(format: "%.2f", vsMake))× | ≤ 1.5×: \(vsMake <= 1.5 ? "PASS" : "MISS") |
        | xargs -P8 | \(String(format: "%.3f", median(viaXargs))) s | \(String(format: "%.2f", vsXargs))× | ≤ 3×: \(vsXargs <= 3 ? "PASS" : "MISS") |
        """)
}
pipelineWorkloads(selection, binary: binary, quick: quick)

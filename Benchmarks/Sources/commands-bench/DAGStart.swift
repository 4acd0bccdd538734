// C4 (Benchmarks/README.md): a DAG of 2,000 commands with 5,000 `needs` edges starts its first
// command within 200 ms, as a user feels it: a whole `taskview run --headless -j 8` process.
// The commands without needs append `date +%s%N` (wall clock, ns) to a file; the figure is
// the earliest stamp minus the moment the bench called posix_spawn. Peers in the same rounds:
// `make -j8` on the same DAG as a Makefile, taskview on a 1-command scenario (its fixed
// start-up), and the floor: the stamping command spawned directly.
import Foundation

/// A deterministic DAG: `commands` nodes, the first `roots` without needs, the others each
/// needing 2-3 distinct earlier nodes so that there are exactly `edges` edges.
struct DAG {
    let commands: Int
    let roots: Int
    /// needs[i]: the earlier nodes node i needs.
    let needs: [[Int]]

    init(commands: Int, edges: Int, roots: Int) {
        self.commands = commands
        self.roots = roots
        let others = commands - roots
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var needs = [[Int]](repeating: [], count: commands)
        for i in roots..<commands {
            let k = min(i, edges / others + ((i - roots) < edges % others ? 1 : 0))
            var picked: Set<Int> = []
            while picked.count < k { picked.insert(next(i)) }
            needs[i] = picked.sorted()
        }
        self.needs = needs
    }

    var edgeCount: Int { needs.reduce(0) { $0 + $1.count } }
}

/// Writes `s.json` and `Makefile` for `dag` into `dir`; its roots append a stamp to `stamps`.
func writeDAGFiles(_ dag: DAG, dir: String, stamps: String) {
    let stamp = "date +%s%N >> '\(stamps)'"
    var nodes: [String] = []
    var make = ".PHONY: all " + (0..<dag.commands).map { "c\($0)" }.joined(separator: " ") + "\nall:"
    for i in 0..<dag.commands { make += " c\(i)" }
    make += "\n"
    for i in 0..<dag.commands {
        let needs = dag.needs[i].map { "\"c\($0)\"" }.joined(separator: ",")
        let run = i < dag.roots ? #"["sh","-c","\#(stamp)"]"# : #"["true"]"#
        nodes.append(#"{"kind":"command","name":"c\#(i)","id":"c\#(i)","run":\#(run),"needs":[\#(needs)]}"#)
        make += "c\(i):" + dag.needs[i].map { " c\($0)" }.joined() + "\n\t@" + (i < dag.roots ? stamp : "true") + "\n"
    }
    let scenario = #"{"kind":"concurrent","name":"dag","children":["# + nodes.joined(separator: ",\n") + "]}\n"
    try? scenario.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
    try? make.write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
    let one =
        #"{"kind":"concurrent","name":"one","children":[{"kind":"command","name":"c0","run":["sh","-c","\#(stamp)"]}]}"#
    try? one.write(toFile: dir + "/one.json", atomically: true, encoding: .utf8)
}

/// Milliseconds from spawning `args` to the first stamp, and the whole process's seconds.
/// Exits the bench when the process fails or writes fewer than `expected` stamps.
func firstStart(_ args: [String], stamps: String, expected: Int) -> (ms: Double, total: Double) {
    try? FileManager.default.removeItem(atPath: stamps)
    let t0 = now()
    let spawned = realtimeNanos()
    let pid = spawn(args)
    let finished = waitFor(pid)
    let total = now() - t0
    guard finished.succeeded else { fatalError("C4: \(args.joined(separator: " ")) failed (\(finished.status))") }
    let lines = ((try? String(contentsOfFile: stamps, encoding: .utf8)) ?? "").split(separator: "\n")
    let first = lines.compactMap { Int64($0) }.min()
    guard lines.count == expected, let first else {
        fatalError("C4: \(args[0]) wrote \(lines.count) stamps, expected \(expected)")
    }
    return (Double(first - spawned) / 1e6, total)
}

/// Runs C4 and prints its table.
func dagStart(binary: String, rounds: Int) {
    let dag = DAG(commands: 2_000, edges: 5_000, roots: 10)
    precondition(dag.edgeCount == 5_000)
    let dir = scratchDirectory("dag")
    let stamps = dir + "/stamps"
    writeDAGFiles(dag, dir: dir, stamps: stamps)
    let make = which("make")
    let flags = ["--headless", "--no-record", "--no-history", "-j", "8"]
    var rows: [(String, [Double], [Double])] = [
        ("taskview run --headless -j 8", [], []), ("make -j8", [], []),
        ("taskview, a 1-command scenario (its start-up)", [], []), ("floor: the stamping command alone", [], []),
    ]
    for r in 1...rounds {
        let runs: [(args: [String], expected: Int)?] = [
            ([binary, "run", dir + "/s.json"] + flags, dag.roots),
            make.map { ([$0, "-s", "-j8", "-C", dir, "all"], dag.roots) },
            ([binary, "run", dir + "/one.json"] + flags, 1),
            (["/bin/sh", "-c", "date +%s%N >> '\(stamps)'"], 1),
        ]
        for (i, run) in runs.enumerated() {
            guard let run else { continue }
            let (ms, total) = firstStart(run.args, stamps: stamps, expected: run.expected)
            rows[i].1.append(ms)
            rows[i].2.append(total)
        }
        FileHandle.standardError.write(Data("  C4 round \(r)/\(rounds) done\n".utf8))
    }
    try? FileManager.default.removeItem(atPath: dir)
    let f = { (x: Double, format: String) in String(format: format, x) }
    var table = """

        | C4 \(dag.commands) commands, \(dag.edgeCount) needs edges, 8 at a time, whole process | first command started, median | min | max | whole run, median | target |
        |---|---:|---:|---:|---:|---|

        """
    for (i, row) in rows.enumerated() where !row.1.isEmpty {
        let m = median(row.1)
        let target = i == 0 ? "≤ 200 ms: \(m <= 200 * 1.05 ? "PASS" : "MISS")" : ""
        table +=
            "| \(row.0) | \(f(m, "%.1f")) ms | \(f(row.1.min()!, "%.1f")) ms | \(f(row.1.max()!, "%.1f")) ms | \(f(median(row.2), "%.3f")) s | \(target) |\n"
    }
    print(table, terminator: "")
}

// C5 (Benchmarks/README.md): 8 commands each writing 1,000,000 lines at once; taskview absorbs
// them at >= 1 M lines/s in total, answers keys within 100 ms while it does, and holds at most
// 64 MiB resident (its output files are on disk, not in its memory).
//
// The real program in a real terminal: `taskview run -j 8 --exit-when-done` in a detached
// tmux session of 160x48 (its own server socket). While the flood runs, the bench presses `?`
// every ~50 ms and polls `tmux capture-pane` until the help overlay has appeared (or, on the
// next `?`, gone): that time is one key latency. Lines/s: 8,000,000 over the time from
// starting the session to the process having exited (all commands settled). Peak memory: the
// process's VmHWM from /proc, sampled after every key. Peers in the same rounds: the same run
// headless (`--headless`, peak memory from wait4), and the floor: the 8 `seq` to /dev/null.
import Foundation

let helpMarker = "Keys (any key closes this help)"

/// One terminal run: seconds until the process was gone, key latencies (ms), peak RSS (KiB).
struct TerminalRun {
    var seconds = 0.0
    var latencies: [Double] = []
    var timeouts = 0
    var peakKiB = 0
}

/// VmHWM of `pid` in KiB; nil once it has exited (gone or a zombie).
func highWaterKiB(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    var hwm: Int?
    for line in status.split(separator: "\n") {
        if line.hasPrefix("State:") && line.contains("Z") { return nil }
        if line.hasPrefix("VmHWM:") { hwm = Int(line.split(separator: " ")[1]) }
    }
    return hwm
}

/// Runs the flood in tmux once.
func terminalFlood(binary: String, tmux: String, dir: String) -> TerminalRun {
    let socket = dir + "/tmux.sock"
    let t = { (args: [String]) in
        capture([tmux, "-S", socket, "-f", "/dev/null"] + args, extraEnvironment: ["LC_ALL=C.UTF-8"])
    }
    let command = "exec '\(binary)' run '\(dir)/s.json' --no-record --no-history -j 8 --exit-when-done"
    var run = TerminalRun()
    let start = now()
    _ = t(["new-session", "-d", "-x", "160", "-y", "48", "-s", "flood", command])
    guard let pid = Int32(t(["display-message", "-p", "-t", "flood", "#{pane_pid}"]).filter { !$0.isNewline })
    else { fatalError("C5: no tmux pane") }
    defer { _ = t(["kill-server"]) }
    var alive = true
    /// Polls the screen until `condition` holds; nil when the process ended first or 5 s passed.
    func until(_ condition: (String) -> Bool) -> Double? {
        let t0 = now()
        while now() - t0 < 5 {
            guard let hwm = highWaterKiB(pid) else {
                alive = false
                return nil
            }
            run.peakKiB = max(run.peakKiB, hwm)
            if condition(t(["capture-pane", "-p", "-t", "flood"])) { return (now() - t0) * 1000 }
            usleep(5_000) // each look spawns a tmux client: not too often on 2 cores
        }
        return nil
    }
    _ = until { $0.contains("flood") } // the first frame
    var open = false
    while alive {
        let pressed = now()
        _ = t(["send-keys", "-t", "flood", "?"])
        open.toggle()
        let wanted = open
        if let ms = until({ $0.contains(helpMarker) == wanted }) {
            run.latencies.append(ms)
        } else if alive {
            run.timeouts += 1
        }
        let left = 0.05 - (now() - pressed)
        if alive && left > 0 { usleep(UInt32(left * 1e6)) }
    }
    run.seconds = now() - start
    return run
}

/// Runs C5 and prints its table.
func outputFlood(binary: String, lines: Int, rounds: Int) {
    let dir = scratchDirectory("flood")
    let kids = (1...8).map { #"{"kind":"command","name":"seq \#($0)","run":["seq","\#(lines)"]}"# }
    let scenario = #"{"kind":"concurrent","name":"flood","children":["# + kids.joined(separator: ",") + "]}\n"
    try? scenario.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
    let total = Double(8 * lines)
    var terminal: [TerminalRun] = []
    var headless: [(seconds: Double, kib: Int)] = []
    var floor: [Double] = []
    let tmux = which("tmux")
    for r in 1...rounds {
        if let tmux { terminal.append(terminalFlood(binary: binary, tmux: tmux, dir: dir)) }
        var t0 = now()
        let done = waitFor(
            spawn([binary, "run", dir + "/s.json", "--headless", "--no-record", "--no-history", "-j", "8"]))
        guard done.succeeded else { fatalError("C5: the headless run failed (\(done.status))") }
        headless.append((now() - t0, done.maxRSSKiB))
        t0 = now()
        _ = waitFor(spawn(["/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8; do seq \(lines) >/dev/null & done; wait"]))
        floor.append(now() - t0)
        FileHandle.standardError.write(Data("  C5 round \(r)/\(rounds) done\n".utf8))
    }
    try? FileManager.default.removeItem(atPath: dir)
    let rate = { (s: Double) in String(format: "%.2f M lines/s", total / s / 1e6) }
    let mib = { (kib: Int) in String(format: "%.1f MiB", Double(kib) / 1024) }
    let pass = { (ok: Bool) in ok ? "PASS" : "MISS" }
    var table = """

        | C5 8 × \(lines) lines at once (\(Int(total)) lines), 8 at a time | lines/s, median | peak RSS, max | key latency: median / 95 % / max (keys) | targets |
        |---|---:|---:|---|---|

        """
    if !terminal.isEmpty {
        let s = median(terminal.map(\.seconds))
        let peak = terminal.map(\.peakKiB).max()!
        let l = terminal.flatMap(\.latencies).sorted()
        let timeouts = terminal.reduce(0) { $0 + $1.timeouts }
        let keys =
            l.isEmpty
            ? "no key answered"
            : String(
                format: "%.0f / %.0f / %.0f ms (%d)", l[l.count / 2], l[min(l.count - 1, l.count * 95 / 100)],
                l.last!, l.count) + (timeouts > 0 ? ", \(timeouts) unanswered in 5 s" : "")
        let verdict =
            "≥ 1 M lines/s: \(pass(total / s >= 0.95e6)); keys ≤ 100 ms: \(pass(!l.isEmpty && timeouts == 0 && l.last! <= 105)); ≤ 64 MiB: \(pass(peak <= 64 * 1024))"
        table += "| taskview run in tmux 160×48, `?` every 50 ms | \(rate(s)) | \(mib(peak)) | \(keys) | \(verdict) |\n"
    } else {
        table += "| taskview run in tmux | skipped: no tmux | | | |\n"
    }
    let hs = median(headless.map(\.seconds))
    let hpeak = headless.map(\.kib).max()!
    table +=
        "| taskview run --headless | \(rate(hs)) | \(mib(hpeak)) | | ≥ 1 M lines/s: \(pass(total / hs >= 0.95e6)); ≤ 64 MiB: \(pass(hpeak <= 64 * 1024)) |\n"
    table += "| floor: 8 × seq > /dev/null | \(rate(median(floor))) | | | |\n"
    print(table, terminator: "")
}

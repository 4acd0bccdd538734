// attach-bench: what `Graph.serve` costs the program (targets: Benchmarks/README.md).
//
//     swift run -c release --package-path Benchmarks attach-bench [--quick] [--first-frame] [--snapshot-time]
//
// Measured first, in a fresh heap: the stalled viewer (memory growth is then the server's).
// 1. W1 (create + execute + complete + 1 handler, per task) on a plain graph, on a served
//    graph with no viewer, with one viewer reading everything, and with the replay recorder.
// 2. How long a viewer waits for the header and snapshot of a 100,000-node graph.
// 3. 1,000,000 progress events with no viewer and with a viewer that never reads (as one
//    stopped with SIGSTOP): throughput and the resident memory the server adds.
// --w1-only MODE: only W1 in that mode (plain, served, viewer, recorded), for a profiler.
// --snapshot-time: how long a snapshot of a 200,000-node graph (a viewer's resync) takes,
//    and the longest a thread running tasks on that graph waits for it meanwhile.
import Foundation
import TaskGraph
import TaskViewCore
import TaskViewIO

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 7
let tasksPerRound = quick ? 50_000 : 200_000
let events = quick ? 200_000 : 1_000_000
let socketDir = NSTemporaryDirectory() + "attach-bench-\(getpid())"
mkdir(socketDir, 0o700)
defer { rmdir(socketDir) }

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

/// Resident set size in bytes (Linux /proc).
func rss() -> Int {
    guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = s.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// A viewer in a thread of its own: connects, then reads (and discards) until the end, or
/// never reads at all.
final class Viewer: @unchecked Sendable { // fd set once in init; resyncs read after `finished`
    let fd: Int32
    /// `resync` lines received (a reading viewer that fell behind by a whole buffer).
    var resyncs = 0
    let finished = DispatchSemaphore(value: 0)

    init(path: String, reading: Bool) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let b = Array(path.utf8)
            raw.copyBytes(from: b)
            raw[b.count] = 0
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        precondition(r == 0, "connect failed")
        // The first byte comes after the server attached its observer: wait for it.
        var first: UInt8 = 0
        precondition(recv(fd, &first, 1, Int32(MSG_PEEK)) == 1, "no header")
        guard reading else { return }
        Thread.detachNewThread { [self] in
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            let marker = Array(#""ev":"resync""#.utf8)
            while true {
                let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break } // the bytes are discarded, resyncs counted
                // Counted with memchr on the marker's rare "y" (the scan must not slow the
                // reader); a marker split across two reads is missed.
                buf.withUnsafeBytes { b in
                    let base = b.baseAddress!
                    var from = 0
                    while from < n, let hit = memchr(base + from, Int32(UInt8(ascii: "y")), n - from) {
                        let at = UnsafeRawPointer(hit) - base
                        let start = at - 9 // `"ev":"resync"`: the "y" is the 10th byte
                        if start >= 0, start + marker.count <= n,
                            memcmp(base + start, marker, marker.count) == 0
                        {
                            resyncs += 1
                        }
                        from = at + 1
                    }
                }
            }
            finished.signal()
        }
    }

}

/// W1 on `graph`: seconds per task.
func w1(_ graph: Graph, _ n: Int) -> Double {
    final class Sum: @unchecked Sendable { var total = 0 }
    let sum = Sum()
    let cpu0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
    let all0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
    let faults0 = minorFaults()
    let t0 = now()
    for i in 0..<n {
        GraphTask<Int, Never>(graph: graph) { succeed, _ in succeed(i) }
            .success { sum.total &+= $0 }
            .execute()
    }
    let t = now() - t0
    precondition(sum.total == n * (n - 1) / 2)
    if verbose {
        // This thread's CPU below the wall time: it was descheduled (a third busy thread on
        // two cores); other threads' CPU: the server's, the viewer's, the recorder's writer's.
        let cpu = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - cpu0
        let all = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - all0
        FileHandle.standardError.write(
            String(
                format: "      %.3f s wall, %.3f s this thread's CPU, %.3f s other threads', %d page faults\n",
                t, cpu, all - cpu, minorFaults() - faults0
            ).data(using: .utf8)!)
    }
    return t / Double(n)
}

/// BENCH_VERBOSE=1: each timed W1 part prints its wall and CPU times and the page faults.
let verbose = ProcessInfo.processInfo.environment["BENCH_VERBOSE"] == "1"

/// Minor page faults of the whole process so far.
func minorFaults() -> Int {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return u.ru_minflt
}

func cpuSeconds(_ clock: clockid_t) -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

enum Mode: String, CaseIterable {
    case plain = "plain graph"
    case served = "served, no viewer"
    case
        viewer = "served, 1 viewer reading"
    case recorded = "recorded to a file"
}

/// One W1 round on a fresh graph in `mode`: seconds per task, and the resyncs the reading
/// viewer received (viewer mode only).
func w1Round(_ mode: Mode, round: Int) throws -> (time: Double, resyncs: Int?) {
    let graph = Graph()
    var server: GraphServer?
    var viewer: Viewer?
    var recording: (any GraphObservation)?
    let log = socketDir + "/w1-\(round).jsonl"
    switch mode {
    case .plain: break
    case .served: server = try graph.serve(at: socketDir + "/w1.sock")
    case .viewer:
        server = try graph.serve(at: socketDir + "/w1.sock")
        viewer = Viewer(path: server!.path, reading: true)
    case .recorded: recording = try graph.record(to: log, producer: "attach-bench")
    }
    if verbose { FileHandle.standardError.write("    \(mode.rawValue):\n".data(using: .utf8)!) }
    let time = w1(graph, tasksPerRound)
    server?.stop()
    viewer?.finished.wait()
    recording?.cancel()
    unlink(log)
    return (time, viewer?.resyncs)
}

/// `count` progress reports on one task: seconds.
func progressEvents(_ graph: Graph, _ count: Int) -> Double {
    final class Box: @unchecked Sendable { var report: (@Sendable (TaskProgress) -> Void)? }
    let box = Box()
    let task = GraphTask<Int, Never>(graph: graph) { _, _, progress in box.report = progress }.execute()
    let report = box.report!
    let t0 = now()
    for k in 0..<count { report(TaskProgress(Double(k) / Double(count), info: "step \(k)")) }
    let t = now() - t0
    task.cancel()
    return t
}

if CommandLine.arguments.contains("--snapshot-time") {
    // How long a snapshot of a 200,000-node graph takes, and the longest the program's
    // thread (running tasks on that graph meanwhile) waits for it.
    let g = Graph()
    _ = w1(g, 200_000)
    final class Gap: @unchecked Sendable {
        var worst = 0.0
        var running = true
    }
    let gap = Gap()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        var last = now()
        while gap.running {
            GraphTask<Int, Never>(graph: g) { succeed, _ in succeed(1) }.execute()
            usleep(100) // a task every 0.1 ms or so: the graph stays about the same size
            let t = now()
            gap.worst = max(gap.worst, t - last)
            last = t
        }
        done.signal()
    }
    usleep(50_000)
    for _ in 0..<3 {
        let t0 = now()
        let snap = g.snapshot()
        print("snapshot of \(snap.nodes.count) nodes: \(String(format: "%.1f", (now() - t0) * 1000)) ms")
        usleep(50_000)
    }
    gap.running = false
    done.wait()
    print(
        "longest the program's thread waited between two tasks meanwhile: \(String(format: "%.1f", gap.worst * 1000)) ms (0.1 ms of it its own pause)"
    )
    exit(0)
}

if CommandLine.arguments.contains("--first-frame") {
    try reportFirstFrame(nodes: 100_000)
    exit(0)
}

if let k = CommandLine.arguments.firstIndex(of: "--w1-only"), k + 1 < CommandLine.arguments.count {
    let modes: [String: Mode] = ["plain": .plain, "served": .served, "viewer": .viewer, "recorded": .recorded]
    guard let mode = modes[CommandLine.arguments[k + 1]] else {
        FileHandle.standardError.write(
            "attach-bench: --w1-only takes plain, served, viewer or recorded\n".data(using: .utf8)!)
        exit(2)
    }
    var times: [Double] = []
    for round in 0..<rounds { times.append(try w1Round(mode, round: round).time) }
    print("W1 \(mode.rawValue): \(String(format: "%.3f", median(times) * 1e6)) µs per task, median of \(rounds)")
    exit(0)
}

var stalled: [String: [Double]] = [:]
var rssGrowth: [Int] = []
for _ in 0..<rounds {
    let plainGraph = Graph()
    let idle = try plainGraph.serve(at: socketDir + "/p.sock")
    stalled["no viewer", default: []].append(progressEvents(plainGraph, events))
    idle.stop()
    let graph = Graph()
    let server = try graph.serve(at: socketDir + "/s.sock")
    let viewer = Viewer(path: server.path, reading: false)
    let before = rss()
    stalled["viewer that never reads", default: []].append(progressEvents(graph, events))
    rssGrowth.append(rss() - before)
    server.stop()
    close(viewer.fd)
    let recordedGraph = Graph()
    let log = socketDir + "/events.jsonl"
    let recording = try recordedGraph.record(to: log, producer: "attach-bench")
    stalled["recorded to a file (for comparison)", default: []].append(progressEvents(recordedGraph, events))
    recording.cancel()
    unlink(log)
}

var w1Times: [Mode: [Double]] = [:]
var viewerResyncs: [Int] = []
for round in 0..<rounds {
    // Rotated each round, so no mode always runs on the freshest heap.
    let modes = Mode.allCases
    for k in 0..<modes.count {
        let mode = modes[(k + round) % modes.count]
        let (time, resyncs) = try w1Round(mode, round: round)
        w1Times[mode, default: []].append(time)
        if let resyncs { viewerResyncs.append(resyncs) }
    }
}

print("## attach-bench\(quick ? " --quick" : "")")
print("")
print("W1 (create + execute + complete + 1 handler), \(tasksPerRound) tasks, median of \(rounds) rounds:")
print("")
print("| graph | per task | ÷ plain |")
print("|---|---:|---:|")
let plain = median(w1Times[.plain]!)
for mode in Mode.allCases {
    let m = median(w1Times[mode]!)
    print("| \(mode.rawValue) | \(String(format: "%.3f", m * 1e6)) µs | \(String(format: "%.3f", m / plain))× |")
}
print("")
print("Resyncs the reading viewer received, by round: \(viewerResyncs.map(String.init).joined(separator: ", "))")
print("")
print("\(events) progress events on one task, median of \(rounds) rounds:")
print("")
print("| viewer | time | events/s | ÷ no viewer |")
print("|---|---:|---:|---:|")
let base = median(stalled["no viewer"]!)
for key in ["no viewer", "viewer that never reads", "recorded to a file (for comparison)"] {
    let m = median(stalled[key]!)
    print(
        "| \(key) | \(String(format: "%.3f", m)) s | \(String(format: "%.2f", Double(events) / m / 1e6)) M | \(String(format: "%.2f", m / base))× |"
    )
}
print("")
print(
    "Resident memory added while the stalled viewer's buffer filled: max \(rssGrowth.max()! >> 20) MiB "
        + "(buffer: \(GraphServer.bufferBytes >> 20) MiB of events per connection).")

/// Connect to a served graph of `nodes` tasks and read until the snapshot's last part.
func snapshotTime(nodes: Int) throws -> (seconds: Double, bytes: Int) {
    let graph = Graph()
    var tasks: [GraphTask<Int, Never>] = []
    tasks.reserveCapacity(nodes)
    for i in 0..<nodes { tasks.append(GraphTask<Int, Never>(name: "task \(i)", graph: graph) { _, _ in }) }
    let server = try graph.serve(at: socketDir + "/big.sock")
    defer { server.stop() }
    let t0 = now()
    let viewer = Viewer(path: server.path, reading: false)
    defer { close(viewer.fd) }
    var lines = 0
    var bytes = 0
    var buf = [UInt8](repeating: 0, count: 1 << 16)
    // Header, then one snapshot line per MiB or so: done when "part" equals "parts".
    var tail: [UInt8] = []
    while true {
        let n = buf.withUnsafeMutableBytes { recv(viewer.fd, $0.baseAddress, $0.count, 0) }
        precondition(n > 0, "server closed")
        bytes += n
        tail.append(contentsOf: buf[0..<n])
        while let nl = tail.firstIndex(of: 10) {
            let line = String(decoding: tail[..<nl], as: UTF8.self)
            tail.removeFirst(nl + 1)
            lines += 1
            if lines > 1, let r = line.range(of: "\"part\":"), let p = line.range(of: ",\"parts\":"),
                let q = line.range(of: ",\"nodes\"")
            {
                if line[r.upperBound..<p.lowerBound] == line[p.upperBound..<q.lowerBound] {
                    return (now() - t0, bytes)
                }
            }
        }
    }
}

let bigNodes = quick ? 20_000 : 100_000
let snap = try snapshotTime(nodes: bigNodes)
print("")
print(
    "Attach to a \(bigNodes)-node graph: header and full snapshot (\(snap.bytes >> 20) MiB) received in "
        + "\(String(format: "%.3f", snap.seconds)) s.")

/// What a person running `taskview attach` waits for: connect, receive and parse the
/// snapshot, build the dashboard tree (and record it, as `taskview attach` does by
/// default), draw the first frame that shows the whole graph (200x60).
func firstFrame(nodes: Int, record: Bool) throws -> (total: Double, tree: Double, cpu: Double) {
    let graph = Graph()
    var tasks: [GraphTask<Int, Never>] = []
    tasks.reserveCapacity(nodes)
    for i in 0..<nodes { tasks.append(GraphTask<Int, Never>(name: "task \(i)", graph: graph) { _, _ in }) }
    let server = try graph.serve(at: socketDir + "/frame.sock")
    defer { server.stop() }
    let log = socketDir + "/frame.jsonl"
    defer { unlink(log) }
    let t0 = now()
    let cpu0 = cpuSeconds()
    let session = AttachSession()
    try session.attach(path: server.path)
    let recorder = record ? try GraphRecorder(path: log, producer: "attach-bench") : nil
    recorder.map(session.record(to:))
    let source = AttachSource(session: session, title: "attach")
    var model = DashboardModel(title: "attach")
    source.start(model: &model)
    while model.tree.liveCount < nodes + 1 { // the program row and its nodes
        session.wait(seconds: 0.05)
        _ = source.tick(realElapsed: now() - t0, model: &model)
    }
    let tree = now() - t0
    model.fixSelection()
    let frame = Renderer(ascii: false).render(model, width: 200, height: 60)
    precondition(frame.grid.width == 200)
    let total = now() - t0
    let cpu = cpuSeconds() - cpu0
    session.stop()
    recorder?.finish()
    return (total, tree, cpu)
}

/// User + system CPU seconds of every thread of this process (server, reader and main
/// thread all work for the first frame): less sensitive to a shared machine than wall time.
func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
        + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
}

/// The first-frame figures (also alone: `attach-bench --first-frame`).
func reportFirstFrame(nodes bigNodes: Int) throws {
    var frames: [Double] = []
    var framesNoRecord: [Double] = []
    var trees: [Double] = []
    var cpus: [Double] = []
    for _ in 0..<(quick ? 3 : 5) {
        let r = try firstFrame(nodes: bigNodes, record: true)
        frames.append(r.total)
        trees.append(r.tree)
        cpus.append(r.cpu)
        framesNoRecord.append(try firstFrame(nodes: bigNodes, record: false).total)
    }
    print(
        "First frame of a \(bigNodes)-node graph (attach, record to a log as by default), median of "
            + "\(frames.count): \(String(format: "%.3f", median(frames))) s (tree complete at "
            + "\(String(format: "%.3f", median(trees))) s; range \(String(format: "%.3f", frames.min()!))-"
            + "\(String(format: "%.3f", frames.max()!)) s); with --no-record: "
            + "\(String(format: "%.3f", median(framesNoRecord))) s. Target < 1 s. CPU (all threads) per "
            + "first frame: \(String(format: "%.3f", median(cpus))) s.")
}

try reportFirstFrame(nodes: bigNodes)

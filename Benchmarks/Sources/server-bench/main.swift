// server-bench (issue 44): a Hummingbird-style server loop on a graph with retention, served
// for a viewer. 8 workers handle REQUESTS requests in process (no HTTP): each a `GraphTracer`
// span (`GET /fast`, one in ten `GET /slow`) with three `withGraphTask` scopes inside. It
// starts once SOCKET.go exists (attach a viewer first) and prints its resident memory at
// 10,000 requests and every SERVER_BENCH_STEP (100,000) after.
// Variants: SERVER_BENCH_VARIANT=spans (spans alone), =scopes (a root scope instead of the
// span); SERVER_BENCH_NO_TRACER (no tracer installed); SERVER_BENCH_KEEP_ALL (no retention).
// Usage: server-bench REQUESTS SOCKET
import Foundation
import Synchronization
import TaskGraph
import TaskGraphTracing
import Tracing

let arguments = CommandLine.arguments
let requests = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let socket = arguments.count > 2 ? arguments[2] : NSTemporaryDirectory() + "server-bench-\(getpid()).sock"

/// VmRSS of this process in KiB.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ")[1]) ?? 0
    }
    return 0
}

/// A line on stdout at once (a pipe buffers `print`).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let graph =
    ProcessInfo.processInfo.environment["SERVER_BENCH_KEEP_ALL"] != nil
    ? Graph() : Graph(retention: Retention(maxFinishedRoots: 1000))
let server = try graph.serve(at: socket, name: "server-bench")
// SERVER_BENCH_NO_TRACER (with the `scopes` variant): no tracer installed at all.
let tracer: GraphTracer! =
    ProcessInfo.processInfo.environment["SERVER_BENCH_NO_TRACER"] != nil ? nil : GraphTracer(graph: graph)
say("serving at \(socket)")
// The viewer attaches first: every request is seen.
while !FileManager.default.fileExists(atPath: socket + ".go") { usleep(50_000) }

let done = Atomic<Int>(0)
let start = Date()
let monitor = Thread {
    let step = Int(ProcessInfo.processInfo.environment["SERVER_BENCH_STEP"] ?? "") ?? 100_000
    var marks = [10_000] + stride(from: step, through: requests, by: step).map { $0 }
    while !marks.isEmpty {
        let n = done.load(ordering: .relaxed)
        if n >= marks[0] {
            say(String(format: "requests %d rss %d KiB at %.1f s", n, residentKiB(), Date().timeIntervalSince(start)))
            marks.removeFirst()
        } else {
            usleep(2_000)
        }
    }
}
monitor.start()

let workers = 8
// SERVER_BENCH_VARIANT: `spans` (no scopes inside), `scopes` (a scope instead of the span).
let variant = ProcessInfo.processInfo.environment["SERVER_BENCH_VARIANT"] ?? "full"
await withTaskGroup(of: Void.self) { group in
    for w in 0..<workers {
        group.addTask {
            var i = w
            while i < requests {
                switch variant {
                case "spans":
                    await tracer.withSpan(i % 10 == 0 ? "GET /slow" : "GET /fast", ofKind: .server) { _ in }
                case "scopes":
                    await withGraphTask(i % 10 == 0 ? "GET /slow" : "GET /fast", graph: graph) { _ in
                        await withGraphTask("auth", graph: graph) { _ in }
                        await withGraphTask("query", graph: graph) { _ in }
                        await withGraphTask("render", graph: graph) { _ in }
                    }
                default:
                    await tracer.withSpan(i % 10 == 0 ? "GET /slow" : "GET /fast", ofKind: .server) { _ in
                        await withGraphTask("auth", graph: graph) { _ in }
                        await withGraphTask("query", graph: graph) { _ in }
                        await withGraphTask("render", graph: graph) { _ in }
                    }
                }
                done.add(1, ordering: .relaxed)
                i += workers
            }
        }
    }
}
while done.load(ordering: .relaxed) < requests { usleep(10_000) }
usleep(200_000)
say(String(format: "done %d requests in %.1f s, rss %d KiB", requests, Date().timeIntervalSince(start), residentKiB()))
let dropped = graph.droppedRoots
for (name, s) in dropped.sorted(by: { $0.key < $1.key }) {
    say("dropped \(name): \(s.succeeded) succeeded, p50 \(s.p50 ?? 0) s")
}
server.stop()

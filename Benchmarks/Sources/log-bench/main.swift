import Logging
import TaskGraph
import TaskGraphLogging

#if canImport(Glibc)
    import Glibc
#endif

// What a swift-log call costs through GraphLogHandler (README.md, "G1"): N calls of
// `logger.info` inside a `withGraphTask` scope, against the same calls through the wrapped
// handler alone. Wrapped handlers: one that counts (the floor), and StreamLogHandler writing
// to /dev/null (what a server prints). Graph: nobody observing, and recorded to a file.
//
//     swift run -c release --package-path Benchmarks log-bench [--quick]

let quick = CommandLine.arguments.contains("--quick")
let n = quick ? 100_000 : 1_000_000
let rounds = quick ? 3 : 7

/// Counts the records it is given (a wrapped handler that does the least).
struct CountingHandler: LogHandler {
    nonisolated(unsafe) static var count = 0
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    func log(event: LogEvent) { CountingHandler.count &+= 1 }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

func seconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// ns per call of one round: N calls in one scope of `graph`.
func once(_ logger: Logger, graph: Graph) async -> Double {
    let t = await withGraphTask("bench", graph: graph) { _ in
        let t0 = seconds()
        for i in 0..<n { logger.info("request handled", metadata: i & 1023 == 0 ? ["i": "\(i)"] : nil) }
        return seconds() - t0
    }
    return t / Double(n) * 1e9
}

let devNull = fopen("/dev/null", "w")!
setvbuf(devNull, nil, _IOFBF, 1 << 16)
func stream(_ label: String) -> StreamLogHandler {
    // StreamLogHandler's public factories write to stdout/stderr: point stderr at /dev/null.
    StreamLogHandler.standardError(label: label)
}
dup2(fileno(devNull), 2)

let plain = Graph()
let counting = Logger(label: "bench") { _ in CountingHandler() }
let wrappedCounting = Logger(label: "bench") { l in GraphLogHandler(label: l, forwardingTo: CountingHandler()) }
let streaming = Logger(label: "bench") { l in stream(l) }
let wrappedStreaming = Logger(label: "bench") { l in GraphLogHandler(label: l, forwardingTo: stream(l)) }

let recorded = Graph()
let path = "/tmp/log-bench-\(getpid()).jsonl"
let recording = try recorded.record(to: path, producer: "log-bench")
let subjects: [(String, Logger, Graph)] = [
    ("counting handler alone", counting, plain),
    ("GraphLogHandler → counting, unobserved", wrappedCounting, plain),
    ("StreamLogHandler alone", streaming, plain),
    ("GraphLogHandler → StreamLogHandler, unobserved", wrappedStreaming, plain),
    ("GraphLogHandler → StreamLogHandler, recorded", wrappedStreaming, recorded),
    ("GraphLogHandler → counting, recorded", wrappedCounting, recorded),
]
// Rounds interleaved (each subject once a round), so a change of the machine's load touches
// every subject alike; the best round of each.
var best = [Double](repeating: .infinity, count: subjects.count)
for _ in 0..<rounds {
    for (k, s) in subjects.enumerated() { best[k] = min(best[k], await once(s.1, graph: s.2)) }
}
recording.cancel()
unlink(path)
let rows = zip(subjects.map(\.0), best).map { ($0, $1) }

print("G1 logger.info in a scope, N = \(n), best of \(rounds), ns per call")
for (name, ns) in rows { print("  " + name + ": " + String(Int(ns.rounded()))) }
print("  extra unobserved (counting): \(Int((rows[1].1 - rows[0].1).rounded())) ns")
print("  ratio unobserved (stream): \(Double(Int(rows[3].1 / rows[2].1 * 100)) / 100)x")
print("  ratio recorded (stream): \(Double(Int(rows[4].1 / rows[2].1 * 100)) / 100)x")

import Testing

@testable import TaskGraph
@testable import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// Fixtures the log, export and attach tests share: a demo or a hand-built graph recorded to
/// a temporary log and loaded back, and attach stream text parsed into items.

/// A demo run headless to a temporary log (`runDemo`), the log loaded back; the file is
/// removed before this returns.
func demoLog(_ name: String, seed: UInt64, cancel: (name: String, at: Double)? = nil)
    throws -> (run: (lines: [String], final: GraphSnapshot), log: ReplayLog)
{
    let path = temporaryLogPath("demo-\(name)")
    defer { unlink(path) }
    let run = try runDemo(name, seed: seed, path: path, cancel: cancel)
    return (run, try LogReader.load(path: path))
}

/// What `recordGraph` gives back: the value `build` returned, the graph, the log's lines as
/// written and the log loaded back.
struct RecordedGraph<Value> {
    let value: Value
    let graph: Graph
    let lines: [String]
    let log: ReplayLog
}

/// A graph on a `VirtualClock` recorded to a temporary log: `build` makes and starts its
/// tasks, the clock runs until idle, the recorder finishes and the log is read back. The
/// file is removed before this returns.
func recordGraph<Value>(_ tag: String, _ build: (Graph, VirtualClock) throws -> Value)
    throws -> RecordedGraph<Value>
{
    let path = temporaryLogPath(tag)
    defer { unlink(path) }
    let clock = VirtualClock()
    let graph = Graph(clock: clock)
    let recorder = try GraphRecorder(graph: graph, path: path, producer: "test")
    let value = try build(graph, clock)
    clock.runUntilIdle()
    recorder.finish()
    return RecordedGraph(value: value, graph: graph, lines: try readLines(path), log: try LogReader.load(path: path))
}

/// The items of attach stream text (a header line, snapshot parts, events), read the way
/// an attach connection reads them.
func streamItems(_ text: String) throws -> [StreamItem] {
    var stream = LogStream(name: "x")
    return try stream.feed(Array(text.utf8))
}

extension AttachTree {
    /// Applies every item of attach stream `text` from `program` to `tree` (at time 0).
    mutating func apply(_ text: String, program: Int, tree: inout TreeModel) throws {
        for item in try streamItems(text) { apply(item, program: program, tree: &tree, now: 0) }
        refreshRows(tree: &tree, now: 0)
    }
}

/// A temporary file path unique to this process and call.
func temporaryLogPath(_ tag: String) -> String {
    "/tmp/taskview-test-\(getpid())-\(tag)-\(UInt32.random(in: 0...UInt32.max)).jsonl"
}

func readLines(_ path: String) throws -> [String] {
    let bytes = try LogReader.readFile(path)
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
        String.init)
}

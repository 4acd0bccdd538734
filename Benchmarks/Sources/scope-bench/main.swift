import Foundation
import InMemoryTracing
import TaskGraph
import TaskGraphTracing
import Tracing

// scope-bench: what `withGraphTask` costs (README.md), side by side in one run, rounds
// interleaved so that the machine's noise falls on every row alike; compare ratios.
//
//     swift run -c release --package-path Benchmarks scope-bench [--quick] [--runs N] [--only 1,2]
//
// `--only` runs the rows of those numbers (1-based, as listed) alone, e.g. under a profiler;
// the ratios are printed only for a full run.

let quick = CommandLine.arguments.contains("--quick")
let runs: Int = {
    if let i = CommandLine.arguments.firstIndex(of: "--runs"), i + 1 < CommandLine.arguments.count,
        let n = Int(CommandLine.arguments[i + 1]), n >= 1
    {
        return n
    }
    return quick ? 3 : 7
}()
let loopN = quick ? 10_000 : 100_000
let groupN = 10_000

@inline(never) func empty() async {}

/// Seconds per item of one timed run of `body` over `n` items. Nonisolated: the loop runs on
/// the global executor, as a plain async function of a program would, never hopping to the
/// main actor (top-level code's isolation) between items.
nonisolated func timed(_ n: Int, _ body: @Sendable () async -> Void) async -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(n)
}

/// One benchmark row: `run` is `@Sendable`, hence nonisolated (not the main actor's, as a
/// closure formed in top-level code would otherwise be), so every row runs in the same
/// context: a plain async function on the global executor.
struct Row: Sendable {
    let name: String
    let n: Int
    let run: @Sendable () async -> Void
}

nonisolated func makeRows(loopN: Int, groupN: Int) -> [Row] {
    let memory = InMemoryTracer()
    return [
        Row(name: "async let of an empty body", n: loopN) {
            for _ in 0..<loopN {
                async let x: Void = empty()
                await x
            }
        },
        Row(name: "withGraphTask around an empty body", n: loopN) {
            let g = Graph()
            for _ in 0..<loopN { await withGraphTask("s", graph: g) { _ in } }
        },
        Row(name: "withSpan on InMemoryTracer", n: loopN) {
            for i in 0..<loopN {
                await memory.withSpan("s") { _ in await empty() }
                if i % 1000 == 999 { memory.clearAll() }
            }
            memory.clearAll()
        },
        Row(name: "withGraphTask, recorded", n: loopN) {
            let g = Graph()
            let path = NSTemporaryDirectory() + "scope-bench-\(getpid()).jsonl"
            let rec = try! g.record(to: path, producer: "scope-bench")
            for _ in 0..<loopN { await withGraphTask("s", graph: g) { _ in } }
            rec.cancel()
            unlink(path)
        },
        Row(name: "withGraphTask, served (no viewer)", n: loopN) {
            let g = Graph()
            let server = try! g.serve(at: NSTemporaryDirectory() + "scope-bench-\(getpid()).sock", name: "bench")
            for _ in 0..<loopN { await withGraphTask("s", graph: g) { _ in } }
            server.stop()
        },
        Row(name: "task group of 10,000 empty children", n: groupN) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<groupN { group.addTask { await empty() } }
            }
        },
        Row(name: "task group of 10,000 scopes", n: groupN) {
            await groupOfScopes(groupN, in: Graph())
        },
        Row(name: "task group of 10,000 scopes, recorded", n: groupN) {
            let g = Graph()
            let path = NSTemporaryDirectory() + "scope-bench-group-\(getpid()).jsonl"
            let rec = try! g.record(to: path, producer: "scope-bench")
            await groupOfScopes(groupN, in: g)
            rec.cancel()
            unlink(path)
        },
        Row(name: "task group of 10,000 scopes, served (no viewer)", n: groupN) {
            let g = Graph()
            let server = try! g.serve(
                at: NSTemporaryDirectory() + "scope-bench-group-\(getpid()).sock", name: "bench")
            await groupOfScopes(groupN, in: g)
            server.stop()
        },
    ]
}

/// A scope whose body runs `n` scopes with empty bodies as task-group children.
nonisolated func groupOfScopes(_ n: Int, in g: Graph) async {
    await withGraphTask("group", graph: g) { _ in
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<n { group.addTask { await withGraphTask("child") { _ in } } }
        }
    }
}

let allRows = makeRows(loopN: loopN, groupN: groupN)
let only: Set<Int>? = {
    guard let i = CommandLine.arguments.firstIndex(of: "--only"), i + 1 < CommandLine.arguments.count else {
        return nil
    }
    return Set(CommandLine.arguments[i + 1].split(separator: ",").compactMap { Int($0) })
}()
let rows = allRows.enumerated().filter { only?.contains($0.offset + 1) ?? true }.map(\.element)

/// Every round, in a task on the global executor; `main` waits on a semaphore, so the program
/// has no async main (whose main-actor drain valgrind cannot run) and no row ever meets the
/// main actor.
nonisolated func measure(_ rows: [Row], runs: Int) -> [[Double]] {
    let box = SampleBox()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var samples = [[Double]](repeating: [], count: rows.count)
        for round in 0..<runs {
            for (i, r) in rows.enumerated() { samples[i].append(await timed(r.n, r.run)) }
            FileHandle.standardError.write("round \(round + 1)/\(runs)\n".data(using: .utf8)!)
        }
        box.samples = samples
        done.signal()
    }
    done.wait()
    return box.samples
}

/// The samples, handed from the measuring task to `main` once (the semaphore orders the two).
final class SampleBox: @unchecked Sendable {
    var samples: [[Double]] = []
}

let samples = measure(rows, runs: runs)
func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
let med = samples.map(median)
print("| row | median µs/item | min | max |")
print("|---|---|---|---|")
for (i, r) in rows.enumerated() {
    let s = samples[i]
    print(String(format: "| %@ | %.3f | %.3f | %.3f |", r.name, med[i] * 1e6, s.min()! * 1e6, s.max()! * 1e6))
}
guard only == nil else { exit(0) }
print("")
/// `a ÷ b` two ways: the ratio of the rows' medians, and the median of the ratios within each
/// round (rows of one round run back to back, so a slow phase of the machine falls on both).
func ratio(_ label: String, _ a: Int, _ b: Int, target: String) {
    let paired = median(zip(samples[a], samples[b]).map { $0 / $1 })
    print(String(format: "%@: %.2f× (per round: %.2f×; target %@)", label, med[a] / med[b], paired, target))
}
ratio("scope ÷ async let", 1, 0, target: "≤ 2×")
ratio("scope ÷ withSpan(InMemoryTracer)", 1, 2, target: "< 1")
ratio("recorded ÷ unobserved", 3, 1, target: "≤ 1.5×")
ratio("served ÷ unobserved", 4, 1, target: "≤ 1.5×")
ratio("group of scopes ÷ bare group", 6, 5, target: "≤ 1.5×")
ratio("group recorded ÷ group unobserved", 7, 6, target: "≤ 1.5×")
ratio("group served ÷ group unobserved", 8, 6, target: "≤ 1.5×")

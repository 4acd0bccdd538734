import Dispatch
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// Derived tasks with `on queue:` (the Composition article): the closure runs on that queue and
/// takes its turn among that queue's handlers in registration order.
@Suite struct QueuedDerivedTests {
    typealias P = GraphTask<Int, TestError>

    /// A serial queue that can tell whether the current code runs on it.
    final class Marked: Sendable {
        let queue = DispatchQueue(label: "derived on a queue")
        private let key = DispatchSpecificKey<Int>()
        init() { queue.setSpecific(key: key, value: 1) }
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
    }

    /// Waits for `t` (it settles on another thread) and returns its outcome.
    func settled<S, F>(_ t: GraphTask<S, F>) -> Result<S, F>? {
        let r = t.wait(timeout: 30)
        #expect(r != nil, "\(t.name) did not settle")
        return r
    }

    /// The value `t` succeeds with, once settled.
    func settledValue<S, F>(_ t: GraphTask<S, F>) -> S? {
        guard case .success(let v)? = settled(t) else { return nil }
        return v
    }

    @Test func everyClosureRunsOnTheGivenQueue() {
        let q = Marked()
        let g = Graph()
        let onQueue = Recorder<String>()
        let mapped = P.succeed(1, graph: g).mapResult(on: q.queue) { v -> Int in
            onQueue.add("mapResult \(q.isCurrent)")
            return v + 1
        }.execute()
        #expect(settledValue(mapped) == 2)

        let failed = P.fail(TestError(code: 3), graph: g)
        let mappedError = failed.mapError(on: q.queue) { e -> TestError in
            onQueue.add("mapError \(q.isCurrent)")
            return TestError(code: e.code + 1)
        }.execute()
        #expect(settled(mappedError).map { r in if case .failure(let e) = r { e.code } else { 0 } } == 4)

        let outcome = P.succeed(5, graph: g).mapOutcome(on: q.queue) { r -> Result<String, TestError> in
            onQueue.add("mapOutcome \(q.isCurrent)")
            return r.map(String.init)
        }.execute()
        #expect(settledValue(outcome) == "5")

        let then = P.succeed(2, graph: g).then(on: q.queue) { v -> P in
            onQueue.add("then \(q.isCurrent)")
            // The task it returns starts on the queue too.
            return P(graph: g) { succeed, _ in
                onQueue.add("then's task \(q.isCurrent)")
                succeed(v * 10)
            }
        }.execute()
        #expect(settledValue(then) == 20)

        let recovered = P.fail(TestError(), graph: g).recover(on: q.queue) { _ -> GraphTask<Int, Never> in
            onQueue.add("recover \(q.isCurrent)")
            return .succeed(8, graph: g)
        }.execute()
        #expect(settledValue(recovered) == 8)

        let chained = P.fail(TestError(), graph: g).chain(on: q.queue) { r -> GraphTask<Bool, Never> in
            onQueue.add("chain \(q.isCurrent)")
            return .succeed((try? r.get()) == nil, graph: g)
        }.execute()
        #expect(settledValue(chained) == true)

        #expect(
            onQueue.all == [
                "mapResult true", "mapError true", "mapOutcome true", "then true", "then's task true", "recover true",
                "chain true",
            ])
    }

    /// `t.success(on: q) {h1}; t.mapResult(on: q) {...}.execute(); t.success(on: q) {h3}`: h1, the
    /// closure, h3, whether `t` settled before, right after, or later on another thread.
    @Test func aDerivedTaskTakesItsTurnAmongTheQueuesHandlers() {
        let q = Marked()
        for when in ["before", "after", "elsewhere"] {
            let (t, resolver) = P.pending(graph: Graph())
            if when == "before" { resolver.succeed(1) }
            let order = Recorder<String>()
            t.success(on: q.queue) { _ in order.add("h1") }
            let derived = t.mapResult(on: q.queue) { v -> Int in
                order.add("map")
                return v
            }.execute()
            let linked = t.then(on: q.queue) { v -> P in
                order.add("then")
                return .succeed(v, graph: t.graph)
            }.execute()
            t.success(on: q.queue) { _ in order.add("h3") }
            let unrelated = t.mapResult { $0 }.execute() // no queue: on the settling thread
            t.success(on: q.queue) { _ in order.add("h4") }
            if when == "after" { resolver.succeed(1) }
            if when == "elsewhere" { DispatchQueue.global().async { resolver.succeed(1) } }
            _ = settled(derived)
            _ = settled(linked)
            _ = settled(unrelated)
            // Settled elsewhere, the settling thread may still be queueing h4 after `unrelated`.
            var waited = 0
            repeat {
                q.queue.sync {}
                if order.all.count >= 5 { break }
                usleep(1000)
                waited += 1
            } while waited < 10_000
            #expect(order.all == ["h1", "map", "then", "h3", "h4"], "settled \(when)")
        }
    }

    @Test func aTaskCancelledWhileItsClosureWaitsForTheQueueNeverCallsIt() {
        let q = Marked()
        let g = Graph()
        let calls = Counter()
        let gate = DispatchSemaphore(value: 0)
        q.queue.async { gate.wait() } // holds the queue
        let mapped = P.succeed(1, graph: g).mapResult(on: q.queue) { v -> Int in
            calls.bump()
            return v
        }.execute()
        let linked = P.succeed(1, graph: g).then(on: q.queue) { v -> P in
            calls.bump()
            return .succeed(v, graph: g)
        }.execute()
        #expect(mapped.state == .executing)
        mapped.cancel()
        linked.cancel()
        gate.signal()
        q.queue.sync {}
        #expect(calls.value == 0)
        #expect(mapped.state == .cancelled)
        #expect(linked.state == .cancelled)
    }

    /// `retry` makes fresh copies of a queued derived task: they run on the same queue.
    @Test func aRetriedCopyKeepsTheQueue() {
        let q = Marked()
        let g = Graph()
        let attempts = Counter()
        let flaky = P(graph: g) { succeed, fail in
            attempts.bump()
            if attempts.value < 3 { fail(TestError()) } else { succeed(attempts.value) }
        }
        let onQueue = Recorder<Bool>()
        let linked = flaky.then(on: q.queue) { v -> P in
            onQueue.add(q.isCurrent)
            return .succeed(v, graph: g)
        }
        let mapped = linked.mapResult(on: q.queue) { v -> Int in
            onQueue.add(q.isCurrent)
            return v * 2
        }
        let retried = mapped.retry(3).execute()
        #expect(settledValue(retried) == 6)
        #expect(onQueue.all == [true, true]) // the third attempt's closures, on the queue
    }
}

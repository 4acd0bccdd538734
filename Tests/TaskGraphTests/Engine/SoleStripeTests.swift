import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import TaskGraph

/// While one lock stripe alone holds an observed graph's nodes, its lock keeps deliveries
/// apart and the event lock is not taken (`Graph.soleStripe`). A root made on a second
/// stripe ends that first, so observers still never run concurrently with themselves and
/// see every event once, in order. Run under ThreadSanitizer in CI.
@Suite struct SoleStripeTests {
    /// Counts deliveries and notices one that overlaps another.
    final class Watcher: @unchecked Sendable {
        let inside = Atomic<Bool>(false)
        let overlaps = Atomic<Int>(0)
        let sequences = Mutex<[UInt64]>([])

        func see(_ event: GraphEvent) {
            if inside.exchange(true, ordering: .acquiring) { overlaps.add(1, ordering: .relaxed) }
            sequences.withLock { $0.append(event.sequence) }
            inside.store(false, ordering: .releasing)
        }
    }

    @Test func theFirstRootClaimsTheSoleStripeAndARootElsewhereEndsIt() {
        let g = Graph()
        let watcher = Watcher()
        let observation = g.observe { watcher.see($0) }
        defer { observation.cancel() }
        #expect(g.soleStripe.load(ordering: .relaxed) == Graph.soleStripeUnclaimed)
        let here = GraphTask<Int, Never>(graph: g) { s, _ in s(1) }.execute()
        let mine = g.soleStripe.load(ordering: .relaxed)
        #expect(mine == here.stripeIndex)
        // A child joins its parent's stripe: nothing changes.
        _ = here.mapResult { $0 + 1 }.execute()
        #expect(g.soleStripe.load(ordering: .relaxed) == mine)
        let there = SoleStripeTests.rootMadeOnAnotherThread(g)
        // Threads are dealt stripes round-robin: the other thread may share this one's.
        let expected = there == mine ? mine : Graph.noSoleStripe
        #expect(g.soleStripe.load(ordering: .relaxed) == expected)
        g.flushObservers()
        let seen = watcher.sequences.withLock { $0 }
        #expect(SoleStripeTests.firstOutOfOrder(seen) == nil)
        #expect(watcher.overlaps.load(ordering: .relaxed) == 0)
    }

    /// Where `seen` stops being 1, 2, 3, ... (nil: nowhere), to report it briefly.
    static func firstOutOfOrder(_ seen: [UInt64]) -> (index: Int, sequence: UInt64)? {
        seen.enumerated().first { $0.element != UInt64($0.offset + 1) }.map { ($0.offset, $0.element) }
    }

    /// Makes and runs a root on a new thread; returns its stripe.
    static func rootMadeOnAnotherThread(_ g: Graph) -> Int {
        let stripe = Mutex(-1)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let t = GraphTask<Int, Never>(graph: g) { s, _ in s(2) }.execute()
            stripe.withLock { $0 = t.stripeIndex }
            done.signal()
        }
        done.wait()
        return stripe.withLock { $0 }
    }

    @Test func aGraphWithNodesInTwoStripesIsNotObservedThroughOne() {
        let g = Graph()
        let here = GraphTask<Int, Never>(graph: g) { s, _ in s(1) }.execute().stripeIndex
        let there = SoleStripeTests.rootMadeOnAnotherThread(g)
        let observation = g.observe { _ in }
        #expect(g.soleStripe.load(ordering: .relaxed) == (there == here ? here : Graph.noSoleStripe))
        observation.cancel()
        #expect(g.soleStripe.load(ordering: .relaxed) == Graph.noSoleStripe)
    }

    @Test func threadsJoiningMidStreamKeepDeliveriesApartAndInOrder() throws {
        let g = Graph()
        let watcher = Watcher()
        let observation = g.observe { watcher.see($0) }
        let tmp = TemporaryDirectory("taskgraph-sole")
        defer { tmp.remove() }
        let path = tmp.file("log.tglog")
        defer { unlink(path) }
        let recorder = try GraphRecorder(graph: g, path: path, producer: "sole")
        let stop = Atomic<Bool>(false)
        let used = Mutex<Set<Int>>([])
        let started = DispatchSemaphore(value: 0)
        // One thread alone for a while (the sole stripe), keys recorded from another thread
        // meanwhile (they pause its deliveries), then three more threads join.
        let group = DispatchGroup()
        let first = Thread {
            var n = 0
            while !stop.load(ordering: .relaxed) {
                let value = n
                let t = GraphTask<Int, Never>(graph: g) { s, _ in s(value) }.success { _ in }.execute()
                if n == 0 { used.withLock { _ = $0.insert(t.stripeIndex) } }
                n += 1
                if n == 2_000 { started.signal() }
            }
            group.leave()
        }
        group.enter()
        first.start()
        started.wait()
        for i in 0..<50 { recorder.recordKey("k\(i)", node: nil) }
        g.flushObservers()
        for t in 0..<3 {
            group.enter()
            Thread.detachNewThread {
                for i in 0..<3_000 {
                    let leaf = GraphTask<Int, Never>(graph: g) { s, _ in s(i) }
                    if i == 0 { used.withLock { _ = $0.insert(leaf.stripeIndex) } }
                    if (i + t) % 7 == 0 { leaf.cancel() } else { leaf.mapResult { $0 + 1 }.execute() }
                }
                group.leave()
            }
        }
        usleep(100_000)
        stop.store(true, ordering: .relaxed)
        group.wait()
        let stripes = used.withLock { $0 }
        #expect(g.soleStripe.load(ordering: .relaxed) == (stripes.count > 1 ? Graph.noSoleStripe : stripes.first!))
        g.flushObservers()
        recorder.finish()
        observation.cancel()
        let seen = watcher.sequences.withLock { $0 }
        #expect(seen.count > 10_000)
        #expect(SoleStripeTests.firstOutOfOrder(seen) == nil)
        #expect(watcher.overlaps.load(ordering: .relaxed) == 0)
        // The log holds every event and every key (keys numbered among the events).
        let log = try LogReader.load(path: path)
        #expect(log.events.count == seen.count)
        #expect(log.keys.count == 50)
        let numbers = log.events.map(\.sequence)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 })
    }
}

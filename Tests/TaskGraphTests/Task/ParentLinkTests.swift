import Dispatch
import Testing

@testable import TaskGraph

/// A subtask's link to its composite (`AnyGraphTask._parent`): not retained, reaches the
/// composite while it lives (even never executed, held only by the user), and nothing once
/// the composite is being freed, also when that happens on another thread at the same time.
@Suite struct ParentLinkTests {
    @Test func cancelOfASubtaskReachesANeverExecutedComposite() {
        let (g, _) = virtualGraph()
        let inner = GraphTask<Int, TestError>(name: "inner", graph: g) { _, _ in }
        let outer = inner.mapResult { $0 + 1 }
        inner.cancel()
        #expect(outer.state == .cancelled)
        #expect(outer.cancelSource == CancelSource.child)
    }

    @Test func aFreedCompositeIsNotReachedAndItsSubtaskLivesOn() {
        let (g, _) = virtualGraph()
        let inner = GraphTask<Int, TestError>(name: "inner", graph: g) { _, _ in }
        weak var gone: GraphTask<Int, TestError>?
        do {
            let outer = inner.mapResult { $0 + 1 }
            gone = outer
            #expect(inner._parent === outer)
        }
        #expect(gone == nil)
        #expect(inner._parent == nil)
        inner.cancel()
        #expect(inner.state == .cancelled)
        #expect(g.snapshot().nodes.values.filter { $0.state == .cancelled }.count == 1)
    }

    /// `_parent` reads the link's bits in place: one word, the parent's address, zero for nil.
    @Test func theLinkIsTheParentsAddress() {
        #expect(MemoryLayout<ParentLink?>.size == MemoryLayout<UnsafeRawPointer>.size)
        let (g, _) = virtualGraph()
        let inner = GraphTask<Int, TestError>(name: "inner", graph: g) { _, _ in }
        var link: ParentLink? = nil
        #expect(withUnsafeBytes(of: &link) { $0.load(as: UInt.self) } == 0)
        let outer = inner.mapResult { $0 + 1 }
        link = ParentLink(outer)
        let bits = withUnsafeBytes(of: &link) { $0.load(as: UnsafeMutableRawPointer?.self) }
        #expect(bits == Unmanaged.passUnretained(outer as AnyGraphTask).toOpaque())
        link = nil
    }

    @Test func anExecutingCompositeIsReachedUntilItSettles() {
        let (g, _) = virtualGraph()
        let (inner, resolver) = GraphTask<Int, TestError>.pending(name: "inner", graph: g)
        let got = Locked<[Int]>([])
        inner.mapResult { $0 * 2 }.success { v in got.withLock { $0.append(v) } }.execute()
        // Only the graph keeps the executing composite now; the subtask still reaches it.
        resolver.succeed(21)
        #expect(got.get == [42])
    }
}

/// The link raced: one thread cancels a subtask while another drops the last reference to
/// its never-executed composite. Run under ThreadSanitizer with `--filter StressTests`.
@Suite struct ParentLinkStressTests {
    @Test func subtaskCancelledWhileItsCompositeIsDroppedElsewhere() {
        let g = Graph()
        let rounds = 2000
        let cancelled = Counter()
        let outerCancels = Counter()
        for _ in 0..<rounds {
            let inner = GraphTask<Int, TestError>(name: "inner", graph: g) { _, _ in }
            let holder = Locked<GraphTask<Int, TestError>?>(
                inner.mapResult { $0 + 1 }.onCancel { outerCancels.bump() })
            DispatchQueue.concurrentPerform(iterations: 2) { k in
                if k == 0 {
                    inner.cancel()
                    if inner.isCancelled { cancelled.bump() }
                } else {
                    holder.withLock { $0 = nil }
                }
            }
        }
        #expect(cancelled.value == rounds)
        // Reached while it lived, or freed first: at most once per round, never twice.
        #expect(outerCancels.value <= rounds)
    }
}

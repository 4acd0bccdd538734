import Synchronization
import Testing

@testable import TaskGraph

/// The lookup every scope calls once a `GraphTracer` is installed must cost the same on the
/// millionth request as on the first. It once got two calls deeper with every read (the
/// closure was kept in a `Mutex` directly), and a traced server slowed down with every request.
@Suite struct ContextLookupSlotTests {
    /// Where on the stack the installed lookup last ran.
    final class Probe: Sendable {
        let innermost = Atomic<UInt>(0)
    }

    /// How far below this call's frame the installed lookup runs, in bytes of stack.
    @inline(never)
    static func depth(of slot: ContextLookupSlot, probe: Probe) -> Int {
        var here: UInt8 = 0
        let caller = withUnsafeMutablePointer(to: &here) { UInt(bitPattern: $0) }
        _ = slot.find()
        return Int(bitPattern: caller &- probe.innermost.load(ordering: .relaxed))
    }

    @Test func aLookupIsNoDeeperAfterTenThousandReads() {
        let slot = ContextLookupSlot()
        let probe = Probe()
        slot.install {
            var here: UInt8 = 0
            probe.innermost.store(withUnsafeMutablePointer(to: &here) { UInt(bitPattern: $0) }, ordering: .relaxed)
            return nil
        }
        let first = Self.depth(of: slot, probe: probe)
        for _ in 0..<10_000 { _ = slot.find() }
        let later = Self.depth(of: slot, probe: probe)
        #expect(first > 0)
        // Two thunk frames a read would put 20,000 frames (far beyond 4 KiB) between them.
        #expect(later - first < 4096, "the lookup got \(later - first) bytes deeper")
    }

    @Test func theLastInstallWinsAndNoneAnswersNil() {
        let slot = ContextLookupSlot()
        #expect(slot.find() == nil)
        let graph = Graph()
        let a = GraphTask<Void, Never>(name: "a", graph: graph) { succeed, _ in succeed(()) }
        let b = GraphTask<Void, Never>(name: "b", graph: graph) { succeed, _ in succeed(()) }
        slot.install { a }
        slot.install { b }
        #expect(slot.find() === b)
    }
}

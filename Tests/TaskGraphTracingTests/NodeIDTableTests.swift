import TestSupport
import Testing

@testable import TaskGraphTracing

/// The id -> slot table behind the spans: it must agree with a `Dictionary` through growth
/// and removals in any order (backward-shift deletion leaves no holes lookups stop at).
struct NodeIDTableTests {
    @Test func agreesWithADictionaryThroughGrowthAndRemovals() {
        var table = NodeIDTable()
        var reference: [Int: Int32] = [:]
        var rng = SeededGenerator(seed: 42)
        for step in 0..<20_000 {
            // Mostly recent ids (as a graph makes them), some far apart, some stride-of-64 clusters.
            let id: Int
            switch rng.next() % 4 {
            case 0: id = Int(rng.next() % 1_000_000)
            case 1: id = Int(rng.next() % 64) * 64
            default: id = max(0, step - Int(rng.next() % 200))
            }
            if rng.next() % 3 == 0 {
                #expect(table.remove(id) == reference.removeValue(forKey: id))
            } else if reference[id] == nil {
                let slot = Int32(truncatingIfNeeded: step)
                table.insert(id, slot)
                reference[id] = slot
            }
            #expect(table.count == reference.count)
        }
        for id in 0..<1_000_000 where id % 997 == 0 || reference[id] != nil {
            #expect(table.find(id) == reference[id])
        }
        var seen: [Int: Int32] = [:]
        table.forEach { seen[$0] = $1 }
        #expect(seen == reference)
        table.removeAll()
        #expect(table.count == 0)
        #expect(table.find(reference.keys.first ?? 0) == nil)
    }

    /// A graph's ids come in order: a window of live ids sliding along, and long-lived ids a
    /// power of two apart (a watcher made every 4,096 tasks) must both find their entries in
    /// a few probes, not pile up in one run.
    @Test func orderedAndStridedIdsStayNearTheirHome() {
        var table = NodeIDTable()
        for id in 0..<200_000 {
            table.insert(id, Int32(id % 1000))
            let old = id - 1_000
            if old >= 0, old % 4096 != 0 { #expect(table.remove(old) == Int32(old % 1000)) }
        }
        // The last 1,000 ids, and 0, 4096, ..., 196,608.
        #expect(table.count == 1_000 + 49)
        #expect(table.longestProbe <= 8)
        for k in 0..<49 { #expect(table.find(k * 4096) == Int32(k * 4096 % 1000)) }
        for id in 199_000..<200_000 { #expect(table.find(id) == Int32(id % 1000)) }
        #expect(table.find(199_000 - 1) == nil)
    }
}

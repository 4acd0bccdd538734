import Testing
import TestSupport
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
}

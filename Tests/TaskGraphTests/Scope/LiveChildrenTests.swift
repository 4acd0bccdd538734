import TestSupport
import Testing

@testable import TaskGraph

/// `LiveChildren`, a scope's running children by number, against a `Dictionary` doing the same.
@Suite struct LiveChildrenTests {
    @Test func randomInsertsAndRemovesMatchADictionary() {
        let g = Graph()
        let task = GraphTask<Int, Never>.succeed(1, graph: g)
        var generator = SeededGenerator(seed: 31)
        var live = LiveChildren()
        var model: [Int: Double] = [:]
        var next = 0
        for step in 0..<20_000 {
            // Phases of growth and of shrinking, with long-lived early numbers left behind.
            let growing = (step / 2_000) % 2 == 0
            if model.isEmpty || generator.next() % 10 < (growing ? 7 : 3) {
                live.insert(next, LiveChildren.Entry(task: task, weight: Double(next), counted: 0))
                model[next] = Double(next)
                next += 1
            } else {
                let keys = Array(model.keys)
                let key = keys[Int(generator.next() % UInt64(keys.count))]
                #expect(live.remove(key)?.weight == model.removeValue(forKey: key))
                #expect(live.remove(key) == nil)
            }
            if step % 997 == 0 {
                #expect(live.count == model.count)
                for (key, weight) in model { #expect(live[key]?.weight == weight) }
                var seen: [Int: Double] = [:]
                live.forEach { key, entry in seen[key] = entry.weight }
                #expect(seen == model)
            }
        }
        #expect(live[next] == nil)
        #expect(live[-1] == nil)
    }

    @Test func updateChangesOnlyARunningChild() {
        let task = GraphTask<Int, Never>.succeed(1, graph: Graph())
        var live = LiveChildren()
        live.insert(3, LiveChildren.Entry(task: task, weight: 1, counted: 0))
        live.update(3, LiveChildren.Entry(task: task, weight: 2, counted: 0.5))
        live.update(4, LiveChildren.Entry(task: task, weight: 9, counted: 1))
        #expect(live[3]?.weight == 2)
        #expect(live[3]?.counted == 0.5)
        #expect(live[4] == nil)
        #expect(live.count == 1)
    }
}

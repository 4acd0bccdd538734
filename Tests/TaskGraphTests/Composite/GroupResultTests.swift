import Testing

@testable import TaskGraph

/// Groups read their subtasks' outcomes back from untyped storage: values of every shape
/// (inline in an `Any`'s buffer or boxed outside it, trivial or reference-counted) come
/// back intact, and so do failures.
@Suite struct GroupResultTests {
    /// Four words: too wide for an `Any`'s inline buffer, so it is boxed.
    struct Wide: Equatable, Sendable { var a = 1, b = 2, c = 3, d = 4 }
    /// Three words, one of them a reference: inline, not trivial.
    struct Mixed: Equatable, Sendable {
        var tag = 0
        var name = ""
    }
    final class Ref: Sendable {
        let v: Int
        init(_ v: Int) { self.v = v }
    }
    struct Failure: Error, Equatable { var message: String }

    func collect<T: Sendable>(_ values: [T]) -> [T]? {
        let (g, _) = virtualGraph()
        let leaves = values.map { v in GraphTask<T, TestError>(graph: g) { succeed, _ in succeed(v) } }
        let all = GraphTask.concurrent(leaves, graph: g).execute()
        return all.outcome.flatMap { try? $0.get() }
    }

    @Test func concurrentCollectsValuesOfEveryShape() {
        let long = String(repeating: "a long string on the heap ", count: 4)
        #expect(collect([1, 2, 3]) == [1, 2, 3])
        #expect(collect(["short", long]) == ["short", long])
        #expect(collect([[1], [2, 3]]) == [[1], [2, 3]])
        #expect(collect([Wide(), Wide(a: 9, d: 8)]) == [Wide(), Wide(a: 9, d: 8)])
        #expect(collect([Mixed(tag: 1, name: long), Mixed()]) == [Mixed(tag: 1, name: long), Mixed()])
        #expect(collect([Int?.none, 5]) == [nil, 5])
        #expect(collect([(), ()])?.count == 2)
        let refs = [Ref(1), Ref(2)]
        let back = collect(refs)
        #expect(back?.count == 2 && back?[0] === refs[0] && back?[1] === refs[1])
    }

    @Test func failuresAndWinnersComeBackIntact() {
        let (g, _) = virtualGraph()
        let long = String(repeating: "why it failed ", count: 5)
        let failing = GraphTask<Wide, Failure>(graph: g) { _, fail in fail(Failure(message: long)) }
        let ok = GraphTask<Wide, Failure>(graph: g) { succeed, _ in succeed(Wide(a: 5)) }
        let all = GraphTask.concurrent([ok, failing], graph: g).execute()
        #expect(
            all.outcome.map { r -> Failure? in if case .failure(let e) = r { e } else { nil } }
                == Failure(message: long))

        let winner = GraphTask<Mixed, Failure>(graph: g) { succeed, _ in succeed(Mixed(tag: 3, name: long)) }
        let race = GraphTask.race([winner, GraphTask<Mixed, Failure>(graph: g) { _, _ in }], graph: g).execute()
        #expect(race.outcome.flatMap { try? $0.get() } == Mixed(tag: 3, name: long))

        let settled = GraphTask.allSettled(
            [
                GraphTask<String, Failure>(graph: g) { succeed, _ in succeed(long) },
                GraphTask<String, Failure>(graph: g) { _, fail in fail(Failure(message: "no")) },
            ], graph: g
        ).execute()
        guard case .success(let outcomes)? = settled.outcome, outcomes.count == 2 else {
            Issue.record("allSettled did not succeed with two outcomes")
            return
        }
        #expect(outcomes[0] == .success(long))
        #expect(outcomes[1] == .failure(Failure(message: "no")))
    }
}

import Foundation
import Testing

@testable import TaskGraph

/// What a scope's body returns or throws reaches `withGraphTask`'s caller through the scope's
/// driver (`ScopeDriver+Outcome.swift`): in place up to four words, boxed beyond.
@Suite struct ScopeOutcomeTests {
    final class Token: Sendable {}

    struct Big {
        let token: Token
        let a, b, c, d: Int
    }

    @Test func smallAndLargeValuesAndErrorsComeBackUnchanged() async throws {
        let (g, _) = virtualGraph()
        #expect(ScopeDriver.keepsInline(String.self))
        #expect(!ScopeDriver.keepsInline(Big.self))
        let text = await withGraphTask("text", graph: g) { _ in "a string of more than fifteen bytes" }
        #expect(text == "a string of more than fifteen bytes")
        let five = await withGraphTask("five", graph: g) { _ in (1, 2, 3, 4, 5) }
        #expect(five == (1, 2, 3, 4, 5))
        await #expect(throws: TestError(code: 7)) {
            try await withGraphTask("throws", graph: g) { _ throws(TestError) -> Big in throw TestError(code: 7) }
        }
    }

    @Test func aLargeValueIsNeitherLeakedNorFreedEarly() async {
        let (g, _) = virtualGraph()
        weak var weakToken: Token?
        do {
            let big = await withGraphTask("big", graph: g) { _ in Big(token: Token(), a: 1, b: 2, c: 3, d: 4) }
            weakToken = big.token
            #expect(weakToken != nil)
            #expect(big.d == 4)
        }
        #expect(weakToken == nil)
        do {
            let small = await withGraphTask("small", graph: g) { _ in Token() }
            weakToken = small
            #expect(weakToken != nil)
        }
        #expect(weakToken == nil)
    }
}

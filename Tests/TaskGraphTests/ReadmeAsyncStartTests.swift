import Testing

@testable import TaskGraph

/// The README's "async code" start, run exactly as printed there (between the markers).
@Suite struct ReadmeAsyncStartTests {
    @Test func theAsyncStartRunsAndMakesOneTree() async throws {
        // README BEGIN
        func fetch(_ id: Int) async throws -> Int {
            try await Task.sleep(for: .milliseconds(10))
            return id
        }

        let total = try await withGraphTask("import") { _ in
            async let users = withGraphTask("users") { _ in try await fetch(10) }
            let orders = try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 1...3 {
                    group.addTask { try await withGraphTask("order \(id)") { _ in try await fetch(id) } }
                }
                return try await group.reduce(0, +)
            }
            return try await users + orders
        }
        // README END
        #expect(total == 16)
        let s = Graph.shared.snapshot()
        let imports = s.nodes.values.filter { $0.name == "import" && $0.kind == "scope" }
        let mine = imports.first { n in
            Set(n.children.compactMap { s[$0]?.name }) == ["users", "order 1", "order 2", "order 3"]
        }
        #expect(mine?.state == .completed)
        #expect(mine?.progress == TaskProgress(1, info: "4/4"))
    }
}

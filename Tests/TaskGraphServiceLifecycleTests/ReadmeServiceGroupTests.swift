import Logging
import ServiceLifecycle
import TaskGraph
import TaskGraphServiceLifecycle
import Testing

/// The README's ServiceGroup block, verbatim (Tests/e2e/readme.sh finds it here).
// swift-format-ignore
func readmeServiceGroup(httpServer: FakeService, worker: FakeService, logger: Logger) async throws {
let group = ServiceGroup(configuration: .init(services: [
    .init(service: GraphService(httpServer, name: "http")),
    .init(service: GraphService(worker, name: "queue worker")),
], logger: logger))
try await GraphService(group, name: "app").run()
}

@Suite struct ReadmeServiceGroupTests {
    @Test func theReadmesGroupIsANodeWithItsTwoServicesUnderIt() async throws {
        let http = FakeService("readme http")
        let worker = FakeService("readme worker")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let run = Task { try await readmeServiceGroup(httpServer: http, worker: worker, logger: logger) }
        let app = try await waitFor(Graph.shared) { s in
            s.roots.compactMap { s[$0] }.first { $0.name == "app" && $0.children.count == 2 }?.id
        }
        let s = Graph.shared.snapshot()
        #expect(s[app]?.kind == NodeKind.service)
        #expect(Set(s[app]!.children.compactMap { s[$0]?.name }) == ["http", "queue worker"])
        run.cancel()
        _ = await run.result
        #expect(Graph.shared.snapshot()[app]?.state != .executing)
    }
}

import Logging
import ServiceLifecycle
import Synchronization
import TaskGraph
import TaskGraphServiceLifecycle
import Testing

/// servers.md "Services as nodes": `GraphService` runs a service as a node of kind `service`
/// (running, `shutting down`, completed, failed, cancelled), a wrapped `ServiceGroup` is a
/// subtree, and cancelling a node cancels a service but shuts a group down gracefully.
@Suite struct GraphServiceTests {
    @Test func aGroupIsASubtreeOfServicesThatShutDownGracefullyInTheGroupsOrder() async throws {
        let g = Graph()
        let seen = EventLog(g)
        let http = FakeService("http")
        let worker = FakeService("worker")
        let group = group(GraphService(http, name: "http"), GraphService(worker, name: "queue worker"))
        let run = Task { try await GraphService(group, name: "app", graph: g).run() }
        let app = try await waitFor(g) { s in
            s.roots.first.flatMap { s[$0] }.flatMap { $0.children.count == 2 ? $0.id : nil }
        }
        let s = g.snapshot()
        #expect(s[app]?.kind == NodeKind.service)
        #expect(s[app]?.name == "app")
        #expect(s[app]?.state == .executing)
        #expect(Set(s[app]!.children.compactMap { s[$0]?.name }) == ["http", "queue worker"])
        #expect(s[app]!.children.allSatisfy { s[$0]?.kind == NodeKind.service && s[$0]?.state == .executing })

        await group.triggerGracefulShutdown()
        try await run.value
        let end = g.snapshot()
        #expect(end[app]?.state == .completed)
        #expect(end[app]?.failed == false)
        for child in end[app]!.children { #expect(end[child]?.state == .completed) }
        // Shut down in reverse order of the configuration: the worker first.
        #expect(seen.shuttingDown() == ["queue worker", "http"])
        #expect(http.log() == ["running", "graceful shutdown", "returned"])
    }

    @Test func cancellingAServicesNodeCancelsItsRun() async throws {
        let g = Graph()
        let http = FakeService("http")
        let run = Task { try await GraphService(http, name: "http", graph: g).run() }
        let id = try await waitFor(g) { s in s.roots.first }
        g.cancel(id)
        await #expect(throws: CancellationError.self) { try await run.value }
        #expect(g.snapshot()[id]?.state == .cancelled)
        #expect(http.log() == ["running", "cancelled"])
    }

    @Test func cancellingAGroupsNodeShutsItDownGracefullyInstead() async throws {
        let g = Graph()
        let http = FakeService("http")
        let worker = FakeService("worker")
        let group = group(GraphService(http, name: "http"), GraphService(worker, name: "worker"))
        let run = Task { try await GraphService(group, name: "app", graph: g).run() }
        let app = try await waitFor(g) { s in
            s.roots.first.flatMap { s[$0] }.flatMap { $0.children.count == 2 ? $0.id : nil }
        }
        g.cancel(app)
        try await run.value
        let end = g.snapshot()
        #expect(end[app]?.state == .completed)
        for child in end[app]!.children { #expect(end[child]?.state == .completed) }
        #expect(http.log() == ["running", "graceful shutdown", "returned"])
        #expect(worker.log() == ["running", "graceful shutdown", "returned"])
    }

    @Test func aServiceThatThrowsFailsItsNodeWithTheErrorsDescription() async throws {
        let g = Graph()
        let broken = FakeService("db", failWith: "connection refused")
        await #expect(throws: FakeError.self) { try await GraphService(broken, name: "db", graph: g).run() }
        let s = g.snapshot()
        let node = s[s.roots[0]]
        #expect(node?.kind == NodeKind.service)
        #expect(node?.state == .completed)
        #expect(node?.failed == true)
        #expect(node?.message == "connection refused")
    }

    @Test func theDefaultNameIsTheServicesTypeName() {
        #expect(GraphService(FakeService("x")).name == "FakeService")
    }

    private func group(_ services: any Service...) -> ServiceGroup {
        ServiceGroup(
            configuration: .init(
                services: services, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
    }
}

/// A service that runs until graceful shutdown or cancellation (or fails at once), saying
/// what happened to it.
final class FakeService: Service, Sendable {
    let name: String
    let failure: String?
    private let events = Mutex<[String]>([])

    init(_ name: String, failWith failure: String? = nil) {
        self.name = name
        self.failure = failure
    }

    func run() async throws {
        if let failure { throw FakeError(description: failure) }
        events.withLock { $0.append("running") }
        do {
            try await gracefulShutdown()
            events.withLock { $0.append("graceful shutdown") }
            events.withLock { $0.append("returned") }
        } catch {
            events.withLock { $0.append("cancelled") }
            throw error
        }
    }

    func log() -> [String] { events.withLock { $0 } }
}

struct FakeError: Error, CustomStringConvertible {
    let description: String
}

/// The names of the nodes that said `shutting down`, in order.
final class EventLog: Sendable {
    private final class State: Sendable {
        let seen = Mutex<(names: [NodeID: String], shuttingDown: [String])>(([:], []))
    }
    private let state = State()
    private let observation: any GraphObservation

    init(_ graph: Graph) {
        let state = self.state
        observation = graph.observe { event in
            switch event.change {
            case .added(let id, _, let name, _, _, _): state.seen.withLock { $0.names[id] = name }
            case .progress(let id, let progress) where progress.info == "shutting down":
                state.seen.withLock { $0.shuttingDown.append($0.names[id] ?? "?") }
            default: break
            }
        }
    }

    func shuttingDown() -> [String] { state.seen.withLock { $0.shuttingDown } }
    deinit { observation.cancel() }
}

/// What `found` finds in the graph's snapshot, polled (at most 20 s).
func waitFor<T>(_ graph: Graph, _ found: (GraphSnapshot) -> T?) async throws -> T {
    for _ in 0..<2000 {
        if let value = found(graph.snapshot()) { return value }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("not found in 20 s")
    throw CancellationError()
}

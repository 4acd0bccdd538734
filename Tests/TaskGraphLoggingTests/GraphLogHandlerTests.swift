import Logging
import Synchronization
import TaskGraph
import TaskGraphLogging
import TaskGraphTracing
import Testing
import Tracing

/// What a wrapped handler saw: every record, as swift-log handed it over.
final class Captured: Sendable {
    struct Record: Equatable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        var source: String
        var file: String
        var line: UInt
    }
    let records = Mutex<[Record]>([])
}

/// A handler that keeps what it is given.
struct CapturingHandler: LogHandler {
    let captured: Captured
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    func log(event: LogEvent) {
        let r = Captured.Record(
            level: event.level, message: event.message.description,
            metadata: (event.metadata ?? [:]).mapValues { $0.description }, source: event.source,
            file: event.file, line: event.line)
        captured.records.withLock { $0.append(r) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// The `log` events of a graph, as "id level message metadata".
final class LogEvents: Sendable {
    private final class Items: Sendable {
        let m = Mutex<[String]>([])
    }
    private let items = Items()
    let observation: any GraphObservation
    init(_ g: Graph) {
        let items = self.items
        observation = g.observe { e in
            guard case .log(let id, let r) = e.change else { return }
            let meta = r.metadata.keys.sorted().map { "\($0)=\(r.metadata[$0]!)" }.joined(separator: ",")
            items.m.withLock { $0.append("\(id.rawValue) \(r.level) \(r.message) [\(meta)]") }
        }
    }
    var list: [String] { items.m.withLock { $0 } }
}

@Suite struct GraphLogHandlerTests {
    private func logger(_ captured: Captured) -> Logger {
        Logger(label: "test") { label in
            GraphLogHandler(label: label, forwardingTo: CapturingHandler(captured: captured))
        }
    }

    @Test func aRecordInAScopeIsFiledUnderItAndForwardedUnchanged() async {
        let g = Graph(clock: VirtualClock())
        let events = LogEvents(g)
        let captured = Captured()
        var log = logger(captured)
        log[metadataKey: "app"] = "demo"
        let id = await withGraphTask("import", graph: g) { scope in
            log.warning(
                "disk almost full", metadata: ["disk": "sda"], source: "store", file: "Store/Disk.swift",
                function: "check()", line: 42)
            return scope.id
        }
        #expect(events.list == ["\(id.rawValue) warning disk almost full [app=demo,disk=sda]"])
        #expect(
            captured.records.withLock { $0 } == [
                .init(
                    level: .warning, message: "disk almost full", metadata: ["disk": "sda"], source: "store",
                    file: "Store/Disk.swift", line: 42)
            ])
        _ = events.observation
    }

    @Test func aRecordInAGraphTaskBodyIsFiledUnderItsNode() async throws {
        let g = Graph(clock: VirtualClock())
        let events = LogEvents(g)
        let captured = Captured()
        let log = logger(captured)
        let task = GraphTask<Void, any Error>.async(name: "body", graph: g) { _ in
            log.error("failed to connect")
        }
        try await task.value
        #expect(events.list == ["\(task.id.rawValue) error failed to connect []"])
        #expect(captured.records.withLock { $0.map(\.message) } == ["failed to connect"])
    }

    @Test func aRecordInASpanIsFiledUnderTheSpanAndInAScopeInsideItUnderTheScope() async {
        let g = Graph(clock: VirtualClock())
        let events = LogEvents(g)
        let captured = Captured()
        let log = logger(captured)
        let tracer = GraphTracer(graph: g)
        let span = tracer.startSpan("GET /users", context: .topLevel, ofKind: .server)
        let scopeID = await ServiceContext.withValue(span.context) {
            log.info("request")
            return await withGraphTask("query", graph: g) { scope in
                log.notice("querying")
                return scope.id
            }
        }
        span.end()
        #expect(
            events.list == [
                "\(span.nodeID.rawValue) info request []", "\(scopeID.rawValue) notice querying []",
            ])
        #expect(captured.records.withLock { $0.map(\.message) } == ["request", "querying"])
    }

    @Test func aRecordOutsideAnyNodeIsOnlyForwarded() {
        let g = Graph(clock: VirtualClock())
        let events = LogEvents(g)
        let captured = Captured()
        logger(captured).critical("no node", metadata: ["k": "v"])
        #expect(events.list.isEmpty)
        #expect(captured.records.withLock { $0.map(\.message) } == ["no node"])
        #expect(captured.records.withLock { $0.map(\.metadata) } == [["k": "v"]])
    }

    @Test func levelsBelowTheWrappedHandlersLevelAreNeitherFiledNorForwarded() async {
        let g = Graph(clock: VirtualClock())
        let events = LogEvents(g)
        let captured = Captured()
        var log = logger(captured)
        log.logLevel = .notice
        await withGraphTask("quiet", graph: g) { _ in
            log.info("hidden")
            log.notice("shown")
        }
        #expect(events.list.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["notice shown []"])
        #expect(captured.records.withLock { $0.map(\.message) } == ["shown"])
    }
}

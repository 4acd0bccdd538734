import Hummingbird
import InMemoryTracing
import Logging
import ServiceLifecycle
import TaskGraph
import TaskGraphLogging
import TaskGraphServiceLifecycle
import TaskGraphTracing
import Tracing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A Hummingbird 2 server whose request handler runs its steps in graph scopes. Every request
// span (Hummingbird's TracingMiddleware) becomes a span node through GraphTracer, which passes
// the spans on to an InMemoryTracer (a real server would give it swift-otel's tracer); the
// handler's scopes are that span's children. `taskview attach` shows the requests live, and
// `x` `y` on a request's scope cancels that request's work: it ends with an error status,
// the other requests and the server go on. What the handler logs (swift-log through
// GraphLogHandler, still printed on stderr) shows in the detail pane of the node that logged
// it, and a request row counts its warnings (`⚠ 1`). The HTTP server and a queue worker run
// as two services of a ServiceGroup, each a node (GraphService) under the group's node `app`:
// the requests are rows under `http`, the worker's jobs under `queue worker`. With
// `--fail-worker-after SECONDS` the worker throws after that long and the group shuts `http`
// down gracefully (`shutting down`, then completed) before the program exits with the error.
//
//     swift run --package-path Examples/async-server async-server [PORT] [--fail-worker-after S]
//     curl 127.0.0.1:8080/work/200          # a request that takes 200 ms
//     taskview attach

var arguments = Array(CommandLine.arguments.dropFirst())
var failWorkerAfter: Duration?
if let flag = arguments.firstIndex(of: "--fail-worker-after"), flag + 1 < arguments.count,
    let seconds = Double(arguments[flag + 1])
{
    failWorkerAfter = .milliseconds(Int(seconds * 1000))
    arguments.removeSubrange(flag...(flag + 1))
}
let port = arguments.first.flatMap { Int($0) } ?? 8080
LoggingSystem.bootstrap { label in
    GraphLogHandler(label: label, forwardingTo: StreamLogHandler.standardError(label: label))
}
InstrumentationSystem.bootstrap(GraphTracer(forwardingTo: InMemoryTracer()))
let logger = Logger(label: "async-server")
let served = try Graph.shared.serve(name: "async-server")

let router = Router()
router.middlewares.add(TracingMiddleware())
router.get("/work/:ms") { _, context -> String in
    let ms = try context.parameters.require("ms", as: Int.self)
    return try await withGraphTask("handle \(ms) ms") { _ in
        logger.info("handling", metadata: ["ms": "\(ms)"])
        async let audit: Void = withGraphTask("audit") { _ in try await Task.sleep(for: .milliseconds(5)) }
        let rows = try await withGraphTask("load") { scope in
            if ms > 500 { logger.warning("slow request", metadata: ["ms": "\(ms)"]) }
            for step in 1...10 {
                try await Task.sleep(for: .milliseconds(ms / 10))
                scope.progress(Double(step) / 10, info: "step \(step)/10")
            }
            return 10
        }
        try await audit
        return await withGraphTask("render") { _ in "done \(ms) ms, \(rows) rows\n" }
    }
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
let group = ServiceGroup(
    configuration: .init(
        services: [
            .init(service: GraphService(app, name: "http")),
            .init(
                service: GraphService(QueueWorker(failAfter: failWorkerAfter), name: "queue worker"),
                failureTerminationBehavior: .gracefullyShutdownGroup),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: Logger(label: "async-server")))
print("async-server: listening on 127.0.0.1:\(port), serving its graph at \(served.path)")
fflush(nil) // all streams: the line above reaches a pipe or file at once
do {
    try await GraphService(group, name: "app").run()
} catch {
    print("async-server: \(error)")
    exit(1)
}

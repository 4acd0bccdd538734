// A task graph traced into OpenTelemetry across two processes.
//
// The parent runs "release" (a sequential graph); its "deploy" step starts a second copy of
// this program with `--child`, passing the step's span as W3C `traceparent` in the child's
// environment (TRACEPARENT), through the tracer's `inject`. The child `extract`s it and runs
// its own graph inside that context, so its root span is a child of the parent's "deploy"
// span: both processes' spans form one trace. Each process flushes its exporter before it
// exits.
//
// Configuration comes from the usual OpenTelemetry variables: OTEL_EXPORTER_OTLP_ENDPOINT
// (default http://localhost:4318), OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf or http/json),
// OTEL_SERVICE_NAME.
//
//     swift run --package-path Examples/otel otel-demo
import Foundation
import Logging
import OTel
import ServiceLifecycle
import TaskGraph
import TaskGraphTracing
import Tracing

struct StepError: Error, CustomStringConvertible {
    let description: String
}

/// Writes a propagated header into an environment: `traceparent` becomes TRACEPARENT.
struct EnvironmentInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.uppercased()] = value
    }
}

/// Reads TRACEPARENT (and any other propagated header) from an environment.
struct EnvironmentExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.uppercased()]
    }
}

/// A step that takes `seconds` on a background queue, reporting `phases` as progress info.
func step(_ name: String, seconds: Double, phases: [String] = [], graph: Graph) -> GraphTask<Void, StepError> {
    GraphTask<Void, StepError>(name: name, graph: graph) { succeed, _, progress in
        DispatchQueue.global().async {
            for (i, phase) in phases.enumerated() {
                progress(TaskProgress(Double(i) / Double(max(1, phases.count)), info: phase))
                Thread.sleep(forTimeInterval: seconds / Double(max(1, phases.count)))
            }
            if phases.isEmpty { Thread.sleep(forTimeInterval: seconds) }
            succeed(())
        }
    }
}

/// The parent's "deploy" step: runs this program again with `--child`, its own span injected
/// into the child's environment.
func deploy(graph: Graph) -> GraphTask<Void, StepError> {
    GraphTask<Void, StepError>(name: "deploy", graph: graph) { task, succeed, fail, _ in
        guard let context = graph.serviceContext(for: task.id) else {
            fail(StepError(description: "deploy is not traced"))
            return
        }
        var environment = ProcessInfo.processInfo.environment
        InstrumentationSystem.tracer.inject(context, into: &environment, using: EnvironmentInjector())
        let childEnvironment = environment
        DispatchQueue.global().async {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["--child"]
            child.environment = childEnvironment
            do {
                try child.run()
                child.waitUntilExit()
            } catch {
                fail(StepError(description: "cannot start the child: \(error)"))
                return
            }
            if child.terminationStatus == 0 {
                succeed(())
            } else {
                fail(StepError(description: "child exited with status \(child.terminationStatus)"))
            }
        }
    }
}

let isChild = CommandLine.arguments.dropFirst().contains("--child")

var configuration = OTel.Configuration.default
configuration.serviceName = isChild ? "otel-demo-child" : "otel-demo"
configuration.logs.enabled = false
configuration.metrics.enabled = false
configuration.diagnosticLogLevel = .warning
configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(200)
let observability = try OTel.bootstrap(configuration: configuration)
let services = ServiceGroup(services: [observability], gracefulShutdownSignals: [], logger: Logger(label: "otel-demo"))

let graph = Graph()
let tracing = graph.trace()
var failure: (any Error)?
try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await services.run() }
    do {
        if isChild {
            // Join the parent's trace: its "deploy" span is our root's parent.
            var context = ServiceContext.topLevel
            InstrumentationSystem.tracer.extract(
                ProcessInfo.processInfo.environment, into: &context,
                using: EnvironmentExtractor())
            let root = GraphTask.sequential(
                [
                    step("migrate database", seconds: 0.05, phases: ["lock", "apply", "unlock"], graph: graph),
                    GraphTask.concurrent(
                        [
                            step("start web", seconds: 0.05, graph: graph),
                            step("start worker", seconds: 0.05, graph: graph),
                        ], name: "start services", combine: { _ in () }),
                ], name: "child: roll out", combine: { _ in () })
            try await ServiceContext.$current.withValue(context) { try await root.value }
        } else {
            let root = GraphTask.sequential(
                [
                    step("build", seconds: 0.05, phases: ["compile", "link"], graph: graph),
                    step("test", seconds: 0.05, graph: graph),
                    deploy(graph: graph),
                ], name: "release", combine: { _ in () })
            try await root.value
        }
    } catch {
        failure = error
    }
    tracing.cancel()
    // Graceful shutdown flushes the batch span processor and shuts the exporter down.
    await services.triggerGracefulShutdown()
    try await group.waitForAll()
}
if let failure {
    FileHandle.standardError.write(Data("otel-demo: \(failure)\n".utf8))
    exit(1)
}

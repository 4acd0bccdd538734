import ArgumentParser
import TaskGraph
import TaskGraphProcess
import TaskViewCore
import TaskViewIO
import TaskViewTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `--otlp` / `--no-otlp`: the live OpenTelemetry stream of `run`, `demo` and `attach`.
struct OTLPOptions: ParsableArguments {
    @Flag(
        name: .long,
        help:
            "Stream spans live to an OTLP/HTTP collector (OTEL_EXPORTER_OTLP_* variables; default http://localhost:4318). On by default when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set."
    )
    var otlp = false

    @Flag(name: .long, help: "No live OTLP stream, whatever the environment says.")
    var noOtlp = false

    func validate() throws {
        if otlp && noOtlp { throw ValidationError("--otlp and --no-otlp cannot be used together") }
    }

    /// The stream's configuration, nil when it is off; a variable that cannot be used is a
    /// one-line error naming it (exit status 2), before anything runs.
    func config() throws -> OTLPConfig? {
        let env = Self.environment()
        guard !noOtlp, otlp || OTLPConfig.requested(by: env) else { return nil }
        do {
            return try OTLPConfig.from(env)
        } catch {
            writeStderr("taskview: \(Sanitizer.clean(error.description))\n")
            // An https collector a program's environment names for other programs: this
            // run goes on without the stream (said above); asked for with --otlp, exit 2.
            if error.unsupported, !otlp {
                writeStderr("taskview: not streaming to OpenTelemetry (--no-otlp says nothing)\n")
                return nil
            }
            throw ExitCode(2)
        }
    }

    /// This process's environment.
    static func environment() -> [String: String] {
        var out: [String: String] = [:]
        var at = environ
        while let p = at.pointee {
            let entry = String(cString: p)
            if let eq = entry.firstIndex(of: "=") {
                out[String(entry[..<eq])] = String(entry[entry.index(after: eq)...])
            }
            at += 1
        }
        return out
    }
}

/// A running stream and what ends it.
enum OTLPRun {
    /// Starts streaming `graph` (the spans `export --format otlp-json` writes of the log with
    /// `header`), and makes every command started from now on carry `TRACEPARENT`: the run's
    /// trace id and the command's own span id.
    static func start(graph: Graph, header: LogHeader, origin: Double, config: OTLPConfig) -> OTLPStream {
        let stream = OTLPStream(graph: graph, header: header, origin: origin, config: config)
        CommandEnvironment.set { [stream] _, node in ["TRACEPARENT": stream.traceparent(node)] }
        return stream
    }

    /// Sends what is left (a short bounded time) and says on stderr how many spans never
    /// arrived, if any.
    static func finish(_ stream: OTLPStream?) {
        guard let stream else { return }
        CommandEnvironment.set(nil)
        if let line = stream.notice(stream.finish()) { writeStderr("taskview: \(Sanitizer.clean(line))\n") }
    }

    /// A header for a run without a log: `created` is now.
    static func header(created: String?, producer: String, scenario: String?, seed: UInt64?) -> LogHeader {
        var h = LogHeader()
        h.created = created ?? now()
        h.producer = producer
        h.scenario = scenario
        h.seed = seed
        return h
    }

    /// Now in ISO 8601, UTC, as a log's header writes it.
    static func now() -> String { iso8601Now() }
}

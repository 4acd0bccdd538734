import Foundation
import TaskGraph
import Testing

@testable import TaskViewCore

/// The live OTLP stream's pure parts: the `OTEL_*` variables, the spans handed out as nodes
/// settle (the export's ids and attributes), the CI/CD attributes, the protobuf encoding.
@Suite struct OTLPLiveTests {
    func config(_ env: [String: String]) throws(OTLPConfig.Problem) -> OTLPConfig { try OTLPConfig.from(env) }

    func problem(_ env: [String: String]) -> OTLPConfig.Problem? {
        do {
            _ = try OTLPConfig.from(env)
            return nil
        } catch {
            return error
        }
    }

    @Test func theBaseEndpointGetsV1TracesTheTracesEndpointIsTakenAsIs() throws {
        let base = try config(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"])
        #expect(base.url == "http://collector:4318/v1/traces")
        #expect(base.host == "collector")
        #expect(base.port == 4318)
        #expect(base.path == "/v1/traces")
        #expect(try config(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/otlp/"]).path == "/otlp/v1/traces")
        let traces = try config([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://ignored:1",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://[::1]:9999/t",
        ])
        #expect(traces.url == "http://[::1]:9999/t")
        #expect(traces.host == "::1")
        #expect(traces.port == 9999)
        #expect(try config([:]).url == "http://localhost:4318/v1/traces")
        #expect(try config(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"]).port == 80)
    }

    @Test func theOtherVariables() throws {
        let c = try config([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318",
            "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x-team = ci",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-resource,deployment.environment=ci",
        ])
        #expect(c.headers.map { "\($0.name)=\($0.value)" } == ["api-key=a b", "x-team=ci"])
        #expect(c.wire == .json) // the traces variable wins
        #expect(c.timeout == 2.5)
        #expect(c.serviceName == "from-resource")
        #expect(c.resourceAttributes.map { "\($0.key)=\($0.value)" } == ["deployment.environment=ci"])
        let named = try config(["OTEL_SERVICE_NAME": "svc", "OTEL_RESOURCE_ATTRIBUTES": "service.name=r"])
        #expect(named.serviceName == "svc")
        #expect(try config([:]).serviceName == "taskview")
        #expect(try config([:]).wire == .protobuf)
        #expect(try config([:]).timeout == 10)
    }

    @Test func aBadVariableIsNamed() {
        #expect(problem(["OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318"])?.variable == "OTEL_EXPORTER_OTLP_ENDPOINT")
        #expect(
            problem(["OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318"])?.reason.hasPrefix("https is not supported")
                == true)
        #expect(
            problem(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "c:4318"])?.variable == "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        #expect(
            problem(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:99999"])?.reason == "http://c:99999 has no valid port")
        #expect(
            problem(["OTEL_EXPORTER_OTLP_HEADERS": "key"])?.description
                == "OTEL_EXPORTER_OTLP_HEADERS: key is not key=value")
        #expect(problem(["OTEL_EXPORTER_OTLP_HEADERS": "k=%zz"])?.variable == "OTEL_EXPORTER_OTLP_HEADERS")
        #expect(problem(["OTEL_EXPORTER_OTLP_HEADERS": "a b=1"])?.variable == "OTEL_EXPORTER_OTLP_HEADERS")
        #expect(problem(["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])?.variable == "OTEL_EXPORTER_OTLP_PROTOCOL")
        #expect(problem(["OTEL_EXPORTER_OTLP_TIMEOUT": "10s"])?.variable == "OTEL_EXPORTER_OTLP_TIMEOUT")
        #expect(problem(["OTEL_RESOURCE_ATTRIBUTES": "=x"])?.variable == "OTEL_RESOURCE_ATTRIBUTES")
        #expect(OTLPConfig.requested(by: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c"]))
        #expect(!OTLPConfig.requested(by: ["OTEL_EXPORTER_OTLP_ENDPOINT": ""]))
    }

    /// A scenario run: "ci" (sequential) with "compile" (a command, exit 0) and "test" (a
    /// command that exits 3).
    static let log =
        [
            #"{"format":"taskgraph-log","version":1,"created":"2026-01-31T12:00:00Z","producer":"taskview run ci.json","scenario":"ci","seed":0}"#,
            #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"command","name":"compile","weight":1}"#,
            #"{"seq":2,"t":0,"ev":"add","id":1,"kind":"command","name":"test","weight":1}"#,
            #"{"seq":3,"t":0,"ev":"add","id":2,"kind":"sequential","name":"ci","weight":1}"#,
            #"{"seq":4,"t":0,"ev":"parent","id":0,"parent":2,"index":0}"#,
            #"{"seq":5,"t":0,"ev":"parent","id":1,"parent":2,"index":1}"#,
            #"{"seq":6,"t":0,"ev":"state","id":2,"state":"executing"}"#,
            #"{"seq":7,"t":0,"ev":"state","id":0,"state":"executing"}"#,
            #"{"seq":8,"t":1,"ev":"state","id":0,"state":"completed"}"#,
            #"{"seq":9,"t":1,"ev":"state","id":1,"state":"executing"}"#,
            #"{"seq":10,"t":2,"ev":"state","id":1,"state":"completed","failed":true,"message":"exit status 3: broken"}"#,
            #"{"seq":11,"t":2,"ev":"state","id":2,"state":"completed","failed":true,"message":"exit status 3: broken"}"#,
        ].joined(separator: "\n") + "\n"

    func load() throws -> ReplayLog {
        let path = temporaryLogPath("otlp-live")
        defer { unlink(path) }
        try Data(Self.log.utf8).write(to: URL(fileURLWithPath: path))
        return try LogReader.load(path: path, skipBadLines: false)
    }

    func value(_ span: OTLPSpan, _ key: String) -> OTLPValue? { span.attributes.first { $0.key == key }?.value }

    @Test func eachNodesSpanIsHandedOutOnceWhenItSettlesWithTheExportsIds() throws {
        let log = try load()
        var live = OTLPLiveSpans(header: log.header, origin: 0) { id in
            id.rawValue == 0 ? OTLPProcessInfo(commandLine: "make", pid: 4242) : nil
        }
        var order: [[String]] = []
        var spans: [OTLPSpan] = []
        var traceparent = ""
        for e in log.events {
            live.apply(GraphEvent(sequence: 0, time: e.time, change: e.change))
            if case .stateChanged(let id, .executing, _, _) = e.change, id.rawValue == 1 {
                traceparent = live.traceparent(id) // what the command "test" starts with
            }
            let settled = live.takeSettled()
            order.append(settled.map(\.name))
            spans += settled
        }
        #expect(order.filter { !$0.isEmpty } == [["compile"], ["test"], ["ci"]])
        #expect(live.takeSettled().isEmpty)
        #expect(live.takeOpen().isEmpty)

        // The export of the same log: the same ids, parents and attributes.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(OTLPTrace.export(log))) as? [String: Any])
        let exported = try #require(
            ((json["resourceSpans"] as? [[String: Any]])?.first?["scopeSpans"] as? [[String: Any]])?.first?["spans"]
                as? [[String: Any]])
        for span in spans {
            let e = try #require(exported.first { $0["name"] as? String == span.name })
            #expect(e["spanId"] as? String == OTLPTrace.hexString(span.spanID))
            #expect(e["traceId"] as? String == OTLPTrace.hexString(span.traceHigh) + OTLPTrace.hexString(span.traceLow))
            #expect(
                (e["parentSpanId"] as? String)
                    == (span.parentSpanID == 0 ? nil : OTLPTrace.hexString(span.parentSpanID)))
        }
        let test = try #require(spans.first { $0.name == "test" })
        #expect(
            traceparent
                == "00-\(OTLPTrace.hexString(test.traceHigh))\(OTLPTrace.hexString(test.traceLow))-\(OTLPTrace.hexString(test.spanID))-01"
        )

        let compile = try #require(spans.first { $0.name == "compile" })
        #expect(value(compile, "cicd.pipeline.task.name") == .string("compile"))
        #expect(value(compile, "cicd.pipeline.task.run.id") == .string(OTLPTrace.hexString(compile.spanID)))
        #expect(value(compile, "cicd.pipeline.task.run.result") == .string("success"))
        #expect(value(compile, "process.command_line") == .string("make"))
        #expect(value(compile, "process.pid") == .int(4242))
        #expect(value(compile, "process.exit.code") == .int(0))
        #expect(value(test, "cicd.pipeline.task.run.result") == .string("failure"))
        #expect(value(test, "process.exit.code") == .int(3))
        #expect(value(test, "process.pid") == nil)
        let root = try #require(spans.first { $0.name == "ci" })
        #expect(value(root, "cicd.pipeline.name") == .string("ci"))
        #expect(value(root, "cicd.pipeline.result") == .string("failure"))
        #expect(value(root, "cicd.pipeline.run.id") == .string(OTLPTrace.hexString(OTLPTrace.logSeed(log.header))))
        #expect(value(root, "cicd.pipeline.task.name") == nil)
        #expect(value(compile, "cicd.pipeline.name") == nil)
        // 2026-01-31T12:00:00Z plus t.
        #expect(test.start == 1_769_860_801_000_000_000)
        #expect(test.end == 1_769_860_802_000_000_000)
    }

    @Test func theExportWritesTheCICDAttributesToo() throws {
        let json = String(decoding: OTLPTrace.export(try load()), as: UTF8.self)
        #expect(json.contains(#"{"key":"cicd.pipeline.result","value":{"stringValue":"failure"}}"#))
        #expect(json.contains(#"{"key":"cicd.pipeline.task.run.result","value":{"stringValue":"failure"}}"#))
        #expect(json.contains(#"{"key":"process.exit.code","value":{"intValue":"3"}}"#))
    }

    @Test func protobufEncodingOfOneSpan() {
        let span = OTLPSpan(
            traceHigh: 1, traceLow: 2, spanID: 3, parentSpanID: 0, name: "a", start: 5, end: 6,
            attributes: [("k", .int(-1))], events: [], error: .some(nil))
        let bytes = OTLPProtobuf.span(span)
        let expected: [UInt8] =
            [0x0A, 16, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2] // trace_id
            + [0x12, 8, 0, 0, 0, 0, 0, 0, 0, 3] // span_id (no parent_span_id)
            + [0x2A, 1, 0x61, 0x30, 1] // name "a", kind 1
            + [0x39, 5, 0, 0, 0, 0, 0, 0, 0, 0x41, 6, 0, 0, 0, 0, 0, 0, 0] // start, end (fixed64)
            + [0x4A, 16, 0x0A, 1, 0x6B, 0x12, 11, 0x18] + [UInt8](repeating: 0xFF, count: 9) + [0x01] // k = -1
            + [0x7A, 2, 0x18, 2] // status: code 2, no message
        #expect(bytes == expected)
    }
}

/// scale.md: `attach --otlp` sends each attached program's spans under a resource whose
/// `service.name` is the program's name (its `NAME (pid N)` row); other spans keep the run's.
@Suite struct OTLPProgramResourceTests {
    private func span(_ name: String, service: String?) -> OTLPSpan {
        OTLPSpan(
            traceHigh: 1, traceLow: 2, spanID: 3, parentSpanID: 0, name: name, start: 0, end: 1, attributes: [],
            events: [], error: nil, service: service)
    }

    @Test func aProgramRowNamesItsService() {
        #expect(OTLPSpanBuilder.programName("api (pid 4121)") == "api")
        #expect(OTLPSpanBuilder.programName("odd (pid) name (pid 7)") == "odd (pid) name")
        #expect(OTLPSpanBuilder.programName("plain") == "plain")
    }

    @Test func spansAreGroupedIntoOneResourcePerServiceInOrder() {
        let spans = [
            span("a", service: "api"), span("b", service: "api"), span("c", service: "worker"), span("d", service: nil),
        ]
        let groups = OTLPSpan.byService(spans)
        #expect(groups.map(\.service) == ["api", "worker", nil])
        #expect(groups.map { $0.spans.map(\.name) } == [["a", "b"], ["c"], ["d"]])
        let resource: [(key: String, value: OTLPValue)] = [("service.name", .string("taskview")), ("x", .int(1))]
        let api = OTLPSpan.resource(resource, service: "api")
        #expect(api.map(\.key) == ["service.name", "x"])
        #expect(api[0].value == .string("api"))
        #expect(OTLPSpan.resource(resource, service: nil)[0].value == .string("taskview"))
    }

    @Test func theJSONHasOneResourceSpansPerService() {
        var out = JSONWriter(capacity: 1024)
        OTLPTrace.json(
            &out, resource: [("service.name", .string("taskview"))],
            spans: [span("a", service: "api"), span("b", service: nil)])
        let text = out.withBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text.components(separatedBy: "\"resource\":").count == 3)
        #expect(text.contains("{\"key\":\"service.name\",\"value\":{\"stringValue\":\"api\"}}"))
        #expect(text.contains("{\"key\":\"service.name\",\"value\":{\"stringValue\":\"taskview\"}}"))
    }
}

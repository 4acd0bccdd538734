import Foundation
import TaskGraph
import Testing

@testable import TaskViewCore

/// `taskview export --format otlp-json`: the OTLP/JSON mapping of a recorded session.
@Suite struct OTLPExportTests {
    /// Two roots: "build" (sequential: "fetch" ok with progress, "compile" fails, "link"
    /// never runs) and "watch" (cancelled from the keyboard while its child runs).
    static let log =
        [
            #"{"format":"taskgraph-log","version":1,"created":"2026-01-31T12:00:00Z","producer":"/usr/bin/prog --flag","scenario":"ci","seed":3}"#,
            #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"fetch","weight":2}"#,
            #"{"seq":2,"t":0,"ev":"add","id":1,"kind":"task","name":"compile","weight":1}"#,
            #"{"seq":3,"t":0,"ev":"add","id":2,"kind":"task","name":"link","weight":1}"#,
            #"{"seq":4,"t":0,"ev":"add","id":3,"kind":"sequential","name":"build","weight":1}"#,
            #"{"seq":5,"t":0,"ev":"parent","id":0,"parent":3,"index":0}"#,
            #"{"seq":6,"t":0,"ev":"parent","id":1,"parent":3,"index":1}"#,
            #"{"seq":7,"t":0,"ev":"parent","id":2,"parent":3,"index":2}"#,
            #"{"seq":8,"t":0,"ev":"state","id":3,"state":"executing"}"#,
            #"{"seq":9,"t":0,"ev":"state","id":0,"state":"executing"}"#,
            #"{"seq":10,"t":0.25,"ev":"progress","id":0,"fraction":0.5,"info":"Downloading"}"#,
            #"{"seq":11,"t":0.5,"ev":"progress","id":0,"fraction":0.75,"info":"Downloading"}"#,
            #"{"seq":12,"t":1.5,"ev":"state","id":0,"state":"completed"}"#,
            #"{"seq":13,"t":1.5,"ev":"state","id":1,"state":"executing"}"#,
            #"{"seq":14,"t":2,"ev":"state","id":1,"state":"completed","failed":true,"message":"exit 1"}"#,
            #"{"seq":15,"t":2,"ev":"state","id":3,"state":"completed","failed":true,"message":"exit 1"}"#,
            #"{"seq":16,"t":2,"ev":"add","id":4,"kind":"task","name":"serve","weight":1}"#,
            #"{"seq":17,"t":2,"ev":"add","id":5,"kind":"concurrent","name":"watch","weight":1}"#,
            #"{"seq":18,"t":2,"ev":"parent","id":4,"parent":5,"index":0}"#,
            #"{"seq":19,"t":2,"ev":"state","id":5,"state":"executing"}"#,
            #"{"seq":20,"t":2,"ev":"state","id":4,"state":"executing"}"#,
            #"{"seq":21,"t":3,"ev":"cancel","id":5,"source":"keyboard"}"#,
            #"{"seq":22,"t":3,"ev":"cancel","id":4,"source":"parent"}"#,
            #"{"seq":23,"t":3,"ev":"state","id":4,"state":"cancelled"}"#,
            #"{"seq":24,"t":3,"ev":"state","id":5,"state":"cancelled"}"#,
        ].joined(separator: "\n") + "\n"

    func export(_ text: String) throws -> (bytes: [UInt8], spans: [String: [String: Any]], resource: [[String: Any]]) {
        let path = temporaryLogPath("otlp")
        defer { unlink(path) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let bytes = OTLPTrace.export(try LogReader.load(path: path, skipBadLines: false))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let rs = try #require((json["resourceSpans"] as? [[String: Any]])?.first)
        let resource = try #require((rs["resource"] as? [String: Any])?["attributes"] as? [[String: Any]])
        let scope = try #require((rs["scopeSpans"] as? [[String: Any]])?.first)
        let list = try #require(scope["spans"] as? [[String: Any]])
        var spans: [String: [String: Any]] = [:]
        for s in list { spans[s["name"] as! String] = s }
        return (bytes, spans, resource)
    }

    func attribute(_ span: [String: Any]?, _ key: String) -> [String: Any]? {
        let list = span?["attributes"] as? [[String: Any]] ?? []
        return list.first { $0["key"] as? String == key }?["value"] as? [String: Any]
    }

    @Test func oneSpanPerExecutedNodeWithTheLiveMapping() throws {
        let (_, spans, resource) = try export(Self.log)
        #expect(spans.keys.sorted() == ["build", "compile", "fetch", "serve", "watch"]) // "link" never ran

        let build = spans["build"]
        let fetch = spans["fetch"]
        let compile = spans["compile"]
        #expect(build?["parentSpanId"] == nil)
        #expect(fetch?["parentSpanId"] as? String == build?["spanId"] as? String)
        #expect(compile?["parentSpanId"] as? String == build?["spanId"] as? String)
        #expect(spans["serve"]?["parentSpanId"] as? String == spans["watch"]?["spanId"] as? String)
        // One trace per root.
        #expect(fetch?["traceId"] as? String == build?["traceId"] as? String)
        #expect(spans["watch"]?["traceId"] as? String != build?["traceId"] as? String)
        #expect((build?["traceId"] as? String)?.count == 32)
        #expect((build?["spanId"] as? String)?.count == 16)
        #expect(Set(spans.values.map { $0["spanId"] as! String }).count == 5)

        // created 2026-01-31T12:00:00Z = 1769860800 s, plus t.
        #expect(fetch?["startTimeUnixNano"] as? String == "1769860800000000000")
        #expect(fetch?["endTimeUnixNano"] as? String == "1769860801500000000")
        #expect(compile?["endTimeUnixNano"] as? String == "1769860802000000000")

        #expect(attribute(fetch, "taskgraph.kind")?["stringValue"] as? String == "task")
        #expect(attribute(build, "taskgraph.kind")?["stringValue"] as? String == "sequential")
        #expect(attribute(compile, "taskgraph.id")?["intValue"] as? String == "1")
        #expect(attribute(fetch, "taskgraph.weight")?["doubleValue"] as? Double == 2)

        let status = compile?["status"] as? [String: Any]
        #expect(status?["code"] as? Int == 2)
        #expect(status?["message"] as? String == "exit 1")
        #expect(fetch?["status"] == nil)

        #expect(attribute(spans["watch"], "taskgraph.cancel.source")?["stringValue"] as? String == "keyboard")
        #expect(attribute(spans["serve"], "taskgraph.cancel.source")?["stringValue"] as? String == "parent")
        #expect(attribute(fetch, "taskgraph.cancel.source") == nil)
        // A cancel is an error status, described as `Graph.trace(with:)` does.
        let cancelled = spans["serve"]?["status"] as? [String: Any]
        #expect(cancelled?["code"] as? Int == 2)
        #expect(cancelled?["message"] as? String == "cancelled")

        // One event per change of the info text.
        let events = fetch?["events"] as? [[String: Any]] ?? []
        #expect(events.count == 1)
        #expect(events.first?["name"] as? String == "Downloading")
        #expect(events.first?["timeUnixNano"] as? String == "1769860800250000000")

        #expect(
            resource.first { $0["key"] as? String == "service.name" }?["value"] as? [String: String] == [
                "stringValue": "ci"
            ])
    }

    @Test func theSameLogExportsTheSameBytes() throws {
        let a = try export(Self.log).bytes
        let b = try export(Self.log).bytes
        #expect(a == b)
        // A different session (another created time) gets other ids.
        let other = try export(Self.log.replacingOccurrences(of: "12:00:00Z", with: "12:00:01Z")).bytes
        #expect(a != other)
    }

    @Test func withoutAScenarioTheServiceIsTheProducersProgram() throws {
        let text = Self.log.replacingOccurrences(of: #","scenario":"ci","seed":3"#, with: "")
        let (_, _, resource) = try export(text)
        #expect(
            resource.first { $0["key"] as? String == "service.name" }?["value"] as? [String: String] == [
                "stringValue": "prog"
            ])
    }

    @Test func progressEventsStopAt32() throws {
        var lines = [
            #"{"format":"taskgraph-log","version":1,"created":"2026-01-31T12:00:00Z","producer":"p"}"#,
            #"{"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"chatty","weight":1}"#,
            #"{"seq":2,"t":0,"ev":"state","id":0,"state":"executing"}"#,
        ]
        for i in 0..<50 {
            lines.append(#"{"seq":\#(i + 3),"t":\#(i),"ev":"progress","id":0,"fraction":0.01,"info":"step \#(i)"}"#)
        }
        lines.append(#"{"seq":53,"t":60,"ev":"state","id":0,"state":"completed"}"#)
        let (_, spans, _) = try export(lines.joined(separator: "\n") + "\n")
        let events = spans["chatty"]?["events"] as? [[String: Any]] ?? []
        #expect(events.count == 32)
        #expect(events.last?["name"] as? String == "step 31")
    }

    @Test func createdTimesParse() {
        #expect(OTLPTrace.createdNanos("1970-01-01T00:00:01Z") == 1_000_000_000)
        #expect(OTLPTrace.createdNanos("2026-01-31T12:00:00Z") == 1_769_860_800_000_000_000)
        #expect(OTLPTrace.createdNanos("2026-01-31T12:00:00.25Z") == 1_769_860_800_250_000_000)
        #expect(OTLPTrace.createdNanos("2026-01-31T13:00:00+01:00") == 1_769_860_800_000_000_000)
        #expect(OTLPTrace.createdNanos("yesterday") == 0)
        #expect(OTLPTrace.createdNanos(nil) == 0)
    }
}

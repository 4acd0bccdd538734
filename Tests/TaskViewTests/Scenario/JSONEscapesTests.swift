import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// One lexer for JSON string escapes: scenario files and replay logs decode the same way,
/// and each reports a bad escape in its own words (scenarios with line and column).
@Suite struct JSONEscapesTests {
    static let body = #"tab\there \"q\" \/ \u00e9 \ud83d\ude00 lone \ud800 end"#
    static let decoded = "tab\there \"q\" / é 😀 lone \u{FFFD} end"

    @Test func scenariosAndLogsDecodeTheSameText() throws {
        let scenario = try ScenarioDecoder.decode(
            Array(#"{"kind":"work","name":"\#(Self.body)"}"#.utf8),
            file: "s.json", name: "s")
        #expect(scenario.root.name == Self.decoded)
        let log = """
            {"format":"taskgraph-log","version":1}
            {"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"\(Self.body)","weight":1}

            """
        let parsed = try LogReader.parse(Array(log.utf8), name: "l.log")
        #expect(parsed.finalSnapshot.nodes[NodeID(0)]?.name == Self.decoded)
    }

    @Test func badEscapesAreNamedWhereTheyAre() {
        #expect(decodeError(#"{"kind":"work","name":"ab\q"}"#) == #"s.json:1:27: invalid escape '\q'"#)
        #expect(decodeError(#"{"kind":"work","name":"\u12G4"}"#) == #"s.json:1:28: invalid \u escape"#)
        #expect(decodeError("{\"kind\":\"work\",\"name\":\"a\\") == "s.json:1:26: unterminated string")
        let log =
            "{\"format\":\"taskgraph-log\",\"version\":1}\n{\"seq\":1,\"t\":0,\"ev\":\"add\",\"id\":0,\"kind\":\"task\",\"name\":\"a\\q\",\"weight\":1}\n"
        let error = #expect(throws: LogLoadError.self) { try LogReader.parse(Array(log.utf8), name: "l.log") }
        #expect(error?.description == "l.log: line 2: bad escape '\\q'")
    }
}

import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// Bytes a scenario file must not hold, named where they are (FILE:LINE:COLUMN).
@Suite struct ScenarioInputTests {
    func decodeError(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ScenarioDecoder.decode(bytes, file: "s.json", name: "s")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func invalidUTF8IsRefusedWhereItIs() {
        // Before: silently replaced by U+FFFD, in a name as in a command's argv.
        let name = Array(#"{"kind":"work","name":"a"#.utf8) + [0xFF] + Array(#"b"}"#.utf8)
        #expect(decodeError(name) == "s.json:1:25: invalid UTF-8 (byte 0xFF): a scenario file is UTF-8")
        let argv =
            Array("{\"kind\":\"command\",\"name\":\"c\",\n\"run\":[\"ls\",\"x".utf8) + [0xC3] + Array("\"]}".utf8)
        #expect(decodeError(argv) == "s.json:2:15: invalid UTF-8 (byte 0xC3): a scenario file is UTF-8")
        let overlong = Array(#"{"kind":"work","name":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)
        #expect(decodeError(overlong) == "s.json:1:24: invalid UTF-8 (byte 0xC0): a scenario file is UTF-8")
        let surrogate = Array(#"{"kind":"work","name":"é"#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)
        #expect(decodeError(surrogate) == "s.json:1:25: invalid UTF-8 (byte 0xED): a scenario file is UTF-8")
        // Valid multi-byte text still passes.
        #expect(decodeError(Array(#"{"kind":"work","name":"é😀"}"#.utf8)) == nil)
    }

    @Test func aNulIsNamedInTheValueNotTheName() {
        let env = #"{"kind":"command","name":"c","run":"ls","env":{"A":"x\u0000y"}}"#
        #expect(
            decodeError(Array(env.utf8))
                == #"s.json:1:52: $ (command "c"): "env": the value of "A" contains a NUL character (\u0000)"#)
        let badName = #"{"kind":"command","name":"c","run":"ls","env":{"A\u0000":"x"}}"#
        #expect(
            decodeError(Array(badName.utf8))
                == #"s.json:1:48: $ (command "c"): "env" has an invalid variable name "A\#u{0}""#)
        let argv = #"{"kind":"command","name":"c","run":["ls","a\u0000"]}"#
        #expect(
            decodeError(Array(argv.utf8))
                == #"s.json:1:42: $ (command "c"): "run" cannot contain a NUL character (\u0000)"#)
    }
}

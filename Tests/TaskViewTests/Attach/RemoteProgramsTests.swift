import Testing

@testable import TaskViewCore

/// `attach --ssh HOST`: what the remote listing says (the remote taskview's `--list`, or the
/// socket directory without it) and how a PID or PATH picks from it.
@Suite struct RemoteProgramsTests {
    @Test func parsesTheRemoteTaskviewsList() {
        let output = """
            4121  api-server  /tmp/taskgraph-1000/4121.sock  started 2026-11-28T10:00:00Z  3 tasks (2 executing)
            4200  ?  /tmp/taskgraph-1000/4200-2.sock  not answering

            """
        let programs = RemotePrograms.parse(output)
        #expect(programs.map(\.pid) == [4121, 4200])
        #expect(programs.map(\.socket) == ["/tmp/taskgraph-1000/4121.sock", "/tmp/taskgraph-1000/4200-2.sock"])
        #expect(programs.map(\.answering) == [true, false])
        #expect(programs[0].line.hasPrefix("4121  api-server  /tmp/taskgraph-1000/4121.sock  started"))
    }

    @Test func parsesTheSocketDirectoryWithoutTaskview() {
        let programs = RemotePrograms.parse("#sock /run/user/1000/taskgraph/77.sock\r\n#sock /tmp/x/odd.sock\nnoise\n")
        #expect(programs.map(\.pid) == [77, nil])
        #expect(programs.map(\.line) == ["77  ?  /run/user/1000/taskgraph/77.sock", "?  ?  /tmp/x/odd.sock"])
        #expect(programs.allSatisfy { $0.answering })
    }

    @Test func aNameWithControlCharactersIsSanitizedAndLinesWithoutASocketSkipped() {
        let programs = RemotePrograms.parse(
            "1  evil\u{1B}[2Jname  /tmp/t/1.sock  started x\nwelcome to host\n#sock relative.sock\n")
        #expect(programs.count == 1)
        #expect(!programs[0].line.contains("\u{1B}"))
    }

    @Test func aPidPicksItsProgramAndAPathIsTakenAsGiven() {
        let programs = RemotePrograms.parse(
            "10  a  /s/10.sock  started x\n10  a  /s/10-2.sock  started x\n11  b  /s/11.sock  started x\n")
        #expect(RemotePrograms.select("10", from: programs).map(\.socket) == ["/s/10.sock"])
        #expect(RemotePrograms.select("12", from: programs).isEmpty)
        #expect(RemotePrograms.select("x", from: programs).isEmpty)
        #expect(RemotePrograms.select("/other/9.sock", from: programs).map(\.socket) == ["/other/9.sock"])
    }

    @Test func theScriptIsOneShellWord() {
        #expect(RemotePrograms.shellQuoted("it's") == "'it'\\''s'")
        #expect(!RemotePrograms.listScript.contains("'"))
    }

    @Test func socketNamesGiveTheirPid() {
        #expect(AttachSocketName.pid(inName: "/tmp/taskgraph-0/4121.sock") == 4121)
        #expect(AttachSocketName.pid(inName: "4121-2.sock") == 4121)
        #expect(AttachSocketName.pid(inName: "/tmp/app.sock") == nil)
        #expect(AttachSocketName.pid(inName: "/tmp/12") == nil)
    }
}

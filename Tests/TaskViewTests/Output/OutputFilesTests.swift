import TaskGraph
import TaskGraphProcess
import TestSupport
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// Every command's whole output kept in a file (docs/taskview.md): stdout and stderr interleaved,
/// stderr marked, bounded by `--output-limit` with a last line saying so; a temporary
/// directory goes away at the end. And `o`'s answers in the reducer.
@Suite struct OutputFilesTests {
    func out(_ id: Int, _ text: String, _ stream: OutputStreamName = .stdout) -> GraphEvent {
        GraphEvent(sequence: 1, time: 0, change: .output(id: NodeID(id), stream: stream, text: text))
    }

    func read(_ path: String) -> String {
        guard let f = fopen(path, "r") else { return "<missing>" }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            bytes += buf[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func linesInterleavedStderrMarkedOneFilePerNode() throws {
        let files = try CommandOutputFiles(directory: nil)
        files.record([out(3, "one"), out(3, "oops", .stderr), out(5, "other"), out(3, "two")])
        let p = try #require(files.flushedPath(node: 3))
        #expect(p == files.directory + "/3.log")
        #expect(read(p) == "one\n! oops\ntwo\n")
        #expect(read(try #require(files.flushedPath(node: 5))) == "other\n")
        #expect(files.flushedPath(node: 4) == nil)
        // A settled command's file is closed; later lines are appended.
        files.record([
            GraphEvent(
                sequence: 2, time: 0,
                change: .stateChanged(id: NodeID(3), state: .completed, failed: false, message: nil))
        ])
        files.record([out(3, "late")])
        #expect(files.flushedPath(node: 3) == p)
        #expect(read(p) == "one\n! oops\ntwo\nlate\n")
        let dir = files.directory
        files.close()
        #expect(access(dir, F_OK) != 0)
    }

    @Test func nodeIdsFarApartLongAndWideLinesEachInTheirFile() throws {
        let files = try CommandOutputFiles(directory: nil)
        defer { files.close() }
        let long = String(repeating: "é", count: 300) + " end"
        files.record([out(70_000, long), out(0, "first"), out(70_000, "short", .stderr)])
        #expect(read(try #require(files.flushedPath(node: 70_000))) == long + "\n! short\n")
        #expect(read(try #require(files.flushedPath(node: 0))) == "first\n")
        #expect(files.flushedPath(node: 69_999) == nil)
        #expect(files.flushedPath(node: 200_000) == nil)
        #expect(files.flushedPath(node: -1) == nil)
    }

    @Test func pastTheLimitALastLineSaysTheOutputWasCut() throws {
        let files = try CommandOutputFiles(directory: nil, limit: 10)
        defer { files.close() }
        files.record([out(1, "1234"), out(1, "5678"), out(1, "9"), out(1, "more"), out(1, "and more")])
        #expect(
            read(try #require(files.flushedPath(node: 1)))
                == "1234\n5678\n[taskview: output cut: more than 10 bytes (--output-limit)]\n")
    }

    @Test func aMadeDirectoryIs0700AndItsFiles0600() throws {
        let tmp = TemporaryDirectory("taskview-outmode")
        defer { tmp.remove() }
        let dir = tmp.file("run.output")
        let files = try CommandOutputFiles(directory: dir)
        files.record([out(1, "password=hunter2")])
        let p = try #require(files.flushedPath(node: 1))
        var st = stat()
        stat(dir, &st)
        #expect(st.st_mode & 0o7777 == 0o700)
        stat(p, &st)
        #expect(st.st_mode & 0o7777 == 0o600)
        files.close()
        #expect(files.writeError == nil)
    }

    @Test func aFullDiskIsKeptAsTheWriteErrorNamingTheFile() throws {
        let tmp = TemporaryDirectory("taskview-outfull")
        defer { tmp.remove() }
        let files = try CommandOutputFiles(directory: tmp.path)
        #expect(symlink("/dev/full", tmp.file("2.log")) == 0)
        files.record([out(2, "lost")])
        files.close()
        let error = try #require(files.writeError)
        #expect(error.description == "cannot write \(tmp.path)/2.log: No space left on device")
    }

    @Test func aDirectoryUnderAFileIsAClearError() {
        #expect {
            _ = try CommandOutputFiles(directory: "/dev/null/out")
        } throws: { error in
            String(describing: error) == "cannot create directory /dev/null/out for the output files: Not a directory"
        }
    }

    @Test func aGivenDirectoryIsKept() throws {
        let base = TemporaryDirectory("taskview-outtest")
        defer { base.remove() }
        let dir = base.file("run.output")
        let files = try CommandOutputFiles(directory: dir)
        files.record([out(2, "kept")])
        files.close()
        #expect(read(dir + "/2.log") == "kept\n")
        unlink(dir + "/2.log")
        rmdir(dir)
    }

    @Test func oOpensACommandsOutputAndSaysWhyNotElsewhere() {
        var s = EventScript()
        s.add(0, "build")
        s.add(1, "plain", parent: 0)
        s.add(2, "quiet", parent: 0)
        s.start(0)
        s.emit(.output(id: NodeID(0), stream: .stdout, text: "hello"))
        var m = model(s, now: 1)
        m.tree.setCommand(CommandInfo(commandLine: "make"), for: 0)
        m.tree.setCommand(CommandInfo(commandLine: "true"), for: 2)
        #expect(KeyTable.action(for: .char("o"), replay: false) == .openOutput)
        #expect(press(&m, .char("o")) == [.openOutput(node: 0)])
        press(&m, .down)
        #expect(press(&m, .char("o")).isEmpty)
        #expect(frame(&m, 60, 12).last == "plain is not a command: no output to open")
        press(&m, .down)
        #expect(press(&m, .char("o")).isEmpty)
        #expect(m.view.message == "quiet has printed nothing")
    }
}

import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// What a recording does to the disk (issue 42): the log is private (0600) whatever the umask,
/// a failed write is learned by the program and never stops it, and `outputLimit` bounds the
/// output lines a log holds per node with one line saying how much was left out.
@Suite struct RecordingFileTests {
    private func lines(_ path: String) throws -> [String] {
        String(decoding: try LogReader.readFile(path), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    private func e(_ t: Double, _ change: GraphChange) -> GraphEvent {
        GraphEvent(sequence: 1, time: t, change: change)
    }

    private func out(_ id: Int, _ text: String, t: Double = 0) -> GraphEvent {
        e(t, .output(id: NodeID(id), stream: .stdout, text: text))
    }

    @Test func aLogIsCreatedOwnerOnlyEvenOverAWiderFile() throws {
        let tmp = TemporaryDirectory("taskgraph-recfile")
        defer { tmp.remove() }
        let fresh = tmp.file("fresh.jsonl")
        try Graph().record(to: fresh).finish()
        #expect(mode(fresh) == 0o600)
        // An existing log written over holds this run's output now: as private as a new one.
        let old = tmp.file("old.jsonl")
        close(open(old, O_WRONLY | O_CREAT, 0o644))
        chmod(old, 0o666)
        try Graph().record(to: old).finish()
        #expect(mode(old) == 0o600)
    }

    @Test func aFullDiskIsReportedByTheRecordingNotThrownAtTheProgram() throws {
        let graph = Graph(clock: VirtualClock())
        let recording = try graph.record(to: "/dev/full")
        let task = GraphTask<Int, Never>(name: "t", graph: graph) { succeed, _ in succeed(1) }
        task.execute()
        #expect(try #require(task.wait(timeout: 5)).get() == 1)
        recording.finish()
        let error = try #require(recording.recordingError)
        #expect(error.path == "/dev/full")
        #expect(error.message == "No space left on device")
    }

    @Test func aWholeLogHasNoRecordingError() throws {
        let tmp = TemporaryDirectory("taskgraph-recfile")
        defer { tmp.remove() }
        let recording = try Graph().record(to: tmp.file("ok.jsonl"))
        recording.finish()
        #expect(recording.recordingError == nil)
    }

    @Test func aLogUnderAFileCannotBeOpened() {
        #expect(throws: RecordingError.self) { try Graph().record(to: "/dev/null/x.jsonl") }
        do {
            _ = try Graph().record(to: "/dev/null/x.jsonl")
        } catch let error as RecordingError {
            #expect(error.description == "/dev/null/x.jsonl: Not a directory")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func outputPastTheLimitIsLeftOutAndSaidOnceWhenTheNodeSettles() throws {
        let tmp = TemporaryDirectory("taskgraph-recfile")
        defer { tmp.remove() }
        let path = tmp.file("bound.jsonl")
        let r = try GraphRecorder(path: path, producer: "test")
        r.outputLimit = 10 // "12345\n" fits, "67890\n" passes it
        r.record(e(0, .added(id: NodeID(0), kind: "command", name: "c", weight: 1, parent: nil, index: nil)))
        r.record(out(0, "12345"))
        r.record(out(0, "67890", t: 0.5))
        r.record(out(0, "x", t: 0.5)) // fits on its own, but the node is past the limit
        r.record(out(1, "other")) // another node has its own 10 bytes
        r.record(e(1, .stateChanged(id: NodeID(0), state: .completed, failed: false, message: nil)))
        r.finish()
        let got = try lines(path)
        #expect(got[2] == #"{"seq":2,"t":0,"ev":"output","id":0,"stream":"stdout","text":"12345"}"#)
        #expect(got[3] == #"{"seq":3,"t":0.5,"ev":"output","id":1,"stream":"stdout","text":"other"}"#)
        #expect(
            got[4]
                == #"{"seq":4,"t":1,"ev":"output","id":0,"stream":"stderr","text":"[8 bytes of output left out (--output-limit 10 bytes)]"}"#
        )
        #expect(got[5] == #"{"seq":5,"t":1,"ev":"state","id":0,"state":"completed"}"#)
        #expect(got.filter { $0.contains("left out") }.count == 1)
    }

    @Test func outputLeftOutOfANodeStillRunningIsSaidAtTheEnd() throws {
        let tmp = TemporaryDirectory("taskgraph-recfile")
        defer { tmp.remove() }
        let path = tmp.file("open.jsonl")
        let r = try GraphRecorder(path: path, producer: "test")
        r.outputLimit = 0
        r.record(out(3, "secret"))
        r.record(out(3, "more", t: 2))
        r.finish()
        let got = try lines(path)
        #expect(!got.contains { $0.contains("secret") })
        #expect(
            got[1]
                == #"{"seq":1,"t":2,"ev":"output","id":3,"stream":"stderr","text":"[12 bytes of output left out (--output-limit 0 bytes)]"}"#
        )
        #expect(got[2].contains(#""ev":"snapshot""#))
    }

    @Test func withoutALimitEveryLineIsRecorded() throws {
        let tmp = TemporaryDirectory("taskgraph-recfile")
        defer { tmp.remove() }
        let path = tmp.file("all.jsonl")
        let r = try GraphRecorder(path: path, producer: "test")
        for k in 0..<100 { r.record(out(0, "line \(k)")) }
        r.finish()
        #expect(try lines(path).filter { $0.contains(#""ev":"output""#) }.count == 100)
    }

    @Test func eachNodeHasItsOwnBoundNearOrFarIDs() {
        var bound = OutputBound()
        bound.limit = 4
        for node in [3, 5_000_000] {
            let admitted = [4, 1, 2].map { bound.admit(node: node, bytes: $0) }
            #expect(admitted == [true, false, false])
        }
        let none = bound.takeLeftOut(node: 7)
        #expect(none == nil)
        let left = bound.takeAllLeftOut()
        #expect(left.map(\.node) == [3, 5_000_000] && left.map(\.bytes) == [3, 3])
        let again = bound.takeAllLeftOut()
        #expect(again.isEmpty) // said once
    }

    @Test func sizesAreSaidInBinaryUnits() {
        #expect(OutputBound.size(1) == "1 byte")
        #expect(OutputBound.size(1000) == "1000 bytes")
        #expect(OutputBound.size(1536) == "1.5 KiB")
        #expect(OutputBound.size(64 << 20) == "64 MiB")
        #expect(OutputBound.size(136 << 20 + 300_000) == "136 MiB")
        #expect(OutputBound.size(3 << 30) == "3 GiB")
    }
}

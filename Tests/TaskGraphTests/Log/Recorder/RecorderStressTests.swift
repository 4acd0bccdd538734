import Dispatch
import TaskGraph
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Recording while several threads use one graph (CI runs `StressTests` under
/// ThreadSanitizer): the writer thread encodes every event once, with gapless `seq`s.
@Suite struct RecorderStressTests {
    @Test func fourThreadsRecordedAtOnce() throws {
        let graph = Graph()
        let tmp = TemporaryDirectory("taskgraph-recorder-stress")
        defer { tmp.remove() }
        let path = tmp.file("log.tglog")
        defer { unlink(path) }
        let recorder = try GraphRecorder(graph: graph, path: path, producer: "stress")
        let threads = 4
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                let task = GraphTask<Int, Never>(name: "n\(t).\(i)", graph: graph) { succeed, _, progress in
                    progress(TaskProgress(0.5))
                    succeed(i)
                }
                task.execute()
                if i % 100 == 0 { recorder.flush() } // flushes racing the writer thread
            }
        }
        recorder.finish()
        #expect(recorder.writeError == nil)
        var text = ""
        if let f = fopen(path, "rb") {
            defer { fclose(f) }
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            var bytes: [UInt8] = []
            while true {
                let n = fread(&buf, 1, buf.count, f)
                if n <= 0 { break }
                bytes.append(contentsOf: buf[0..<n])
            }
            text = String(decoding: bytes, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").dropFirst() // the header has no seq
        var expected = 1
        var gapless = true
        for line in lines {
            guard line.hasPrefix("{\"seq\":\(expected),") else {
                gapless = false
                break
            }
            expected += 1
        }
        #expect(gapless)
        #expect(lines.filter { $0.contains("\"ev\":\"add\"") }.count == threads * perThread)
        #expect(lines.last?.contains("\"succeeded\":\(threads * perThread),") == true)
    }
}

import Foundation
import Testing

@testable import TaskGraph

/// The server under concurrency (CI runs suites named *StressTests under ThreadSanitizer):
/// program threads produce events while viewers come and go; every stream stays a valid,
/// gapless log and the program never waits.
@Suite struct ServeStressTests {
    @Test func viewersComeAndGoWhileThreadsProduceEvents() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let server = try g.serve(at: tmp.path + "/stress.sock")
        let producing = DispatchGroup()
        for t in 0..<3 {
            DispatchQueue.global().async(group: producing) {
                for i in 0..<400 {
                    GraphTask<Int, Never>(name: "t\(t) #\(i)", graph: g) { _, succeed, _, progress in
                        progress(TaskProgress(0.5, info: "half"))
                        succeed(i)
                    }.execute()
                }
            }
        }
        let bad = Locked<[String]>([])
        let watching = DispatchGroup()
        for v in 0..<3 {
            DispatchQueue.global().async(group: watching) {
                for round in 0..<5 {
                    guard let viewer = try? TestViewer(path: server.path) else {
                        bad.withLock { $0.append("viewer \(v) could not connect") }
                        return
                    }
                    guard viewer.readHeaderAndSnapshot() != nil else {
                        bad.withLock { $0.append("viewer \(v) round \(round): no header/snapshot") }
                        return
                    }
                    var seq = -1
                    for _ in 0..<200 {
                        guard let line = viewer.line(timeout: 0.5) else { break }
                        guard let o = ServeJSON.parse(line), let s = o["seq"] as? Int else {
                            bad.withLock { $0.append("viewer \(v): bad line \(line.prefix(80))") }
                            break
                        }
                        if seq >= 0 && s != seq + 1 { bad.withLock { $0.append("viewer \(v): seq \(seq) then \(s)") } }
                        seq = s
                    }
                }
            }
        }
        producing.wait()
        watching.wait()
        // One last viewer sees the final snapshot and `end` on stop().
        let last = try TestViewer(path: server.path)
        #expect(last.readHeaderAndSnapshot() != nil)
        server.stop()
        let end = last.object { $0["ev"] as? String == "end" }
        #expect((end?["summary"] as? [String: Any])?["succeeded"] as? Int == 1200)
        #expect(bad.get.isEmpty, "\(bad.get.prefix(5))")
        #expect(g.observerCount == 0)
    }
}

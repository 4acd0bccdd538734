import Foundation
import TestSupport
import Testing

@testable import TaskGraph

/// Hostile viewer input (docs/log-format.md "Served streams"): the server never traps, never acts
/// on a bad command, and keeps serving well-behaved viewers.
@Suite struct ServeFuzzTests {
    /// TestSupport's seeded generator, so a failure replays.
    typealias Rng = SeededGenerator

    static let numbers = [
        "1e300", "-1e300", "1e-300", "-1", "-0", "0.5", "2.0", "1E2", "18446744073709551616",
        "1180591620717411303424", String(repeating: "9", count: 5000), "9223372036854775807",
        "-9223372036854775808", "2147483648", "4294967296", "00", "01", "1.", ".5", "+1",
        "NaN", "Infinity", "-", "1e", "0x10", "1_000",
    ]

    /// One hostile line (no newline inside, except for random bytes).
    static func hostile(_ r: inout Rng) -> [UInt8] {
        func cancel(_ id: String) -> String { "{\"cmd\":\"cancel\",\"id\":\(id)}" }
        switch r.int(9) {
        case 0: return r.bytes(1 + r.int(300))
        case 1: return Array(cancel(numbers[r.int(numbers.count)]).utf8)
        case 2:
            let depth = 1 + r.int(3000)
            let open = r.int(2) == 0 ? "[" : "{\"a\":"
            let close = open == "[" ? "]" : "}"
            let inner = String(repeating: open, count: depth) + "1" + String(repeating: close, count: r.int(depth + 1))
            return Array((r.int(2) == 0 ? inner : cancel(inner)).utf8)
        case 3: return Array(("{\"cmd\":\"" + String(repeating: "c", count: r.int(60_000)) + "\"}").utf8)
        case 4:
            let values = ["\"1\"", "true", "null", "[1]", "{\"id\":1}", "\"cancel\"", "[]", "{}"]
            return Array(cancel(values[r.int(values.count)]).utf8)
        case 5:
            let cmds = ["\"Cancel\"", "\"cancel \"", "1", "null", "[\"cancel\"]", "\"\\u0063ancel\"", "\"\""]
            return Array("{\"cmd\":\(cmds[r.int(cmds.count)]),\"id\":0}".utf8)
        case 6:
            // Truncated or broken JSON.
            let whole = Array(cancel("12").utf8)
            return Array(whole[0..<r.int(whole.count)]) + r.bytes(r.int(3))
        case 7:
            // Valid UTF-8 with escapes and controls inside strings.
            return Array("{\"cmd\":\"\\ud800\\udc00\u{7}\\x\",\"id\":\"\u{202E}\"}".utf8)
        default:
            return Array(String(repeating: " ", count: r.int(100)).utf8) + [0x7B, 0x22] + r.bytes(r.int(20))
        }
    }

    @Test func parserSurvivesThreeThousandHostileLines() {
        var r = Rng(seed: 0x9E37_79B9_7F4A_7C15)
        var cancels = 0
        for _ in 0..<3_000 {
            let line = ServeFuzzTests.hostile(&r)
            if case .cancel = ViewerCommand(line: line[...]) { cancels += 1 }
        }
        #expect(cancels == 0)
        #expect(ViewerCommand(line: Array("{\"cmd\":\"cancel\",\"id\":7}".utf8)[...]) == .cancel(7))
        #expect(
            ViewerCommand(line: Array("{\"cmd\":\"cancel\",\"id\":2147483647}".utf8)[...]) == .cancel(2_147_483_647))
        #expect(
            ViewerCommand(line: Array("{\"cmd\":\"cancel\",\"id\":2147483648}".utf8)[...]) != .cancel(2_147_483_648))
        #expect(ViewerCommand(line: Array("not json".utf8)[...]) == .notJSON)
    }

    @Test func liveServerSurvivesAThousandHostileLines() async throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let g = Graph()
        let target = forever(name: "target", graph: g).execute()
        let server = try g.serve(at: tmp.path + "/fuzz.sock")
        defer { server.stop() }
        var r = Rng(seed: 42)
        var viewer: TestViewer?
        var closedConnections = 0
        for k in 0..<1_200 {
            if viewer == nil || viewer!.closed {
                if viewer != nil { closedConnections += 1 }
                let v = try TestViewer(path: server.path)
                #expect(v.readHeaderAndSnapshot() != nil, "reconnect \(k)")
                viewer = v
            }
            viewer!.sendBytes(ServeFuzzTests.hostile(&r) + [10])
            // Every 20 lines, a probe: its error line proves the server read up to here.
            if k % 20 == 19 {
                viewer!.send("{\"cmd\":\"probe\(k)\"}\n")
                _ = viewer!.object(timeout: 30) { ($0["message"] as? String)?.contains("probe\(k)") == true }
            }
        }
        #expect(target.state == .executing) // nothing hostile cancelled anything
        #expect(closedConnections > 0) // the closing rules were exercised

        // A well-behaved viewer is served as usual afterwards.
        let good = try TestViewer(path: server.path)
        let nodes = good.readHeaderAndSnapshot()?.snapshot.first?["nodes"] as? [[String: Any]]
        #expect(nodes?.contains { $0["id"] as? Int == target.id.rawValue } == true)
        good.send("{\"cmd\":\"cancel\",\"id\":\(target.id.rawValue)}\n")
        #expect(good.object { $0["ev"] as? String == "cancel" }?["source"] as? String == "attach")
        #expect(await eventuallyAsync { target.state == .cancelled })
    }
}

extension SeededGenerator {
    /// A number in 0..<n.
    fileprivate mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// `n` random bytes.
    fileprivate mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

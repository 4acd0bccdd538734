import Foundation
import TestSupport
import Testing

@testable import TaskGraph

/// The log's `t` values (seconds on a clock since recording started) are written by
/// `ShortestDecimal`'s guessed search exactly as `Double.description` writes them.
@Suite struct ClockTimeEncodingTests {
    private func text(_ v: Double) -> String {
        var b = LogBuffer()
        b.double(v)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    @Test func clockTimesAndEveryMagnitudeAreWrittenAsDescriptionWritesThem() {
        var rng = SeededGenerator(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { rng.next() }
        var values: [Double] = [
            0.05, 0.125, 0.1 + 0.2, 1e-4 * 3, 0.00012345678901234567,
            99999999999999.9, 123456789012.345, 1.0000000000000002,
        ]
        let start = Double(next() % 1_000_000) + 0.123_456_789
        for _ in 0..<30_000 {
            let unit = Double(next() >> 11) / Double(1 << 53)
            // A monotonic clock's reading minus the start: nanoseconds on a large base.
            let now = start + unit * 3600 + Double(next() % 1_000_000_000) * 1e-9
            values.append(now - start)
            values.append(now)
            // Every magnitude from 1e-4 to 1e15.
            let exponent = Double(next() % 19) - 4
            values.append(unit * Double.pow10(exponent))
        }
        var mismatches: [String] = []
        for v in values where v >= 1e-4 && v < 1e15 && v != v.rounded(.towardZero) && mismatches.count < 5 {
            if text(v) != v.description { mismatches.append("\(v.description) written as \(text(v))") }
        }
        #expect(mismatches.isEmpty)
    }
}

/// A real clock's times are written rounded to the nanosecond (what the clock resolves),
/// with integer arithmetic; a virtual clock's times exactly.
@Suite struct NanosecondTimeTests {
    private func text(_ v: Double) -> String {
        var b = LogBuffer()
        b.nanosecondTimes = true
        b.time(v)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    @Test func timesAreSecondsWithAtMostNineDecimalsAndNoTrailingZeros() {
        #expect(text(0) == "0")
        #expect(text(12) == "12")
        #expect(text(12.5) == "12.5")
        #expect(text(0.1 + 0.2) == "0.3")
        #expect(text(3.000123457) == "3.000123457")
        #expect(text(0.000000001) == "0.000000001")
        #expect(text(4e-10) == "0")
        #expect(text(6e-10) == "0.000000001")
        #expect(text(7199.999999999) == "7199.999999999")
        #expect(text(86_400.25) == "86400.25")
        // Outside what a session's clock gives: as `double` writes it.
        #expect(text(-0.5) == "-0.5")
        #expect(text(2e9 + 0.5) == "2000000000.5")
    }

    @Test func clockTimesReadBackWithinHalfANanosecondAndInTheSameOrder() {
        var rng = SeededGenerator(seed: 0x2545_F491_4F6C_DD1D)
        func next() -> UInt64 { rng.next() }
        let start = 1_000_000 + Double(next() % 1_000_000) * 1e-9
        var times: [Double] = []
        var now = start
        for _ in 0..<20_000 {
            now += Double(next() % 3_000) * 1e-9 // steps of 0-3 µs, some equal
            times.append(now - start)
        }
        var previous = -1.0
        var bad: [String] = []
        for t in times where bad.count < 5 {
            let written = text(t)
            guard let back = Double(written) else {
                bad.append("\(t) written as \(written)")
                continue
            }
            if abs(back - t) > 0.5e-9 + t * 1e-15 { bad.append("\(t) written as \(written)") }
            if back < previous { bad.append("\(t) written as \(written), before \(previous)") }
            if let dot = written.firstIndex(of: "."), written.distance(from: dot, to: written.endIndex) > 10 {
                bad.append("\(written): more than nine decimals")
            }
            previous = back
        }
        #expect(bad.isEmpty)
    }

    @Test func aRecorderWritesRealClockTimesToTheNanosecondAndVirtualOnesExactly() throws {
        func tValues(_ graph: Graph, run: () -> Void) throws -> [String] {
            let tmp = TemporaryDirectory("taskgraph-ns-times")
            defer { tmp.remove() }
            let path = tmp.file("log.jsonl")
            defer { unlink(path) }
            let recorder = try graph.record(to: path, producer: "test")
            run()
            recorder.finish()
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.split(separator: "\n").dropFirst().compactMap { line in
                guard let r = line.range(of: "\"t\":") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "," && $0 != "}" })
            }
        }
        let realGraph = Graph()
        let real = try tValues(realGraph) {
            for _ in 0..<50 { GraphTask<Int, Never>.succeed(1, graph: realGraph).execute() }
        }
        #expect(real.count >= 150)
        #expect(
            real.allSatisfy { t in !(t.split(separator: ".").dropFirst().first.map { $0.count > 9 } ?? false) },
            "\(real.filter { $0.count > 11 }.prefix(3))")

        // A clock of the caller's own (times that are no whole nanoseconds): written exactly.
        let thirds = Graph(clock: ThirdsClock())
        let exact = try tValues(thirds) {
            GraphTask<Int, Never>.succeed(1, graph: thirds).execute()
        }
        #expect(exact.contains("0.3333333333333333"), "\(exact)")
    }
}

extension NanosecondTimeTests {
    /// A served graph on the real clock writes its viewers' `t` as its recorder does.
    @Test func aServedGraphOnTheRealClockWritesTimesToTheNanosecond() throws {
        let tmp = SocketDir()
        defer { tmp.cleanup() }
        let graph = Graph()
        let server = try graph.serve(at: tmp.path + "/ns.sock", name: "ns")
        defer { server.stop() }
        let viewer = try TestViewer(path: server.path)
        _ = try #require(viewer.readHeaderAndSnapshot())
        for _ in 0..<20 { GraphTask<Int, Never>.succeed(1, graph: graph).execute() }
        var times: [String] = []
        while times.count < 60, let line = viewer.line() {
            guard let r = line.range(of: "\"t\":") else { continue }
            times.append(String(line[r.upperBound...].prefix { $0 != "," && $0 != "}" }))
        }
        #expect(times.count == 60)
        #expect(
            times.allSatisfy { Double($0) != nil && ($0.split(separator: ".").dropFirst().first?.count ?? 0) <= 9 },
            "\(times.filter { $0.count > 11 }.prefix(3))")
    }
}

/// Each reading a third of a second later than the one before.
private final class ThirdsClock: GraphClock, @unchecked Sendable { // `ticks` behind `lock`
    private let lock = NSLock()
    private var ticks = 0.0
    var now: Double {
        lock.withLock {
            ticks += 1
            return ticks / 3
        }
    }
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> any GraphTimer {
        fatalError("unused")
    }
}

extension Double {
    fileprivate static func pow10(_ e: Double) -> Double {
        var v = 1.0
        if e >= 0 { for _ in 0..<Int(e) { v *= 10 } } else { for _ in 0..<Int(-e) { v /= 10 } }
        return v
    }
}

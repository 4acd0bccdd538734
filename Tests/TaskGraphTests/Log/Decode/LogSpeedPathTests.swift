import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// The replay log's fast paths give exactly what the general ones give.
@Suite struct LogSpeedPathTests {
    private func text(_ v: Double) -> String {
        var b = LogBuffer()
        b.double(v)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    @Test func doublesAreWrittenAsDescriptionWritesThem() {
        var rng = SeededGenerator(seed: 7)
        var values: [Double] = [
            0.1, 0.2, 0.30000000000000004, 1.0 / 3, 2.0 / 3, 0.5, 0.125, 0.0001, 0.00012,
            123456.789, 99999.99999, 0.9999999999999999, 1.5, 1e14 + 0.5,
        ]
        for k in 1...20_000 {
            values.append(Double(k) * 1e-5)
            values.append(Double(k % 97) / Double(k % 89 + 1))
            values.append(Double(rng.next() >> 11) / Double(1 << 53) * 1000)
            values.append(Double(rng.next() >> 11) / Double(1 << 53))
        }
        var mismatches: [String] = []
        for v in values where v != v.rounded(.towardZero) && mismatches.count < 5 {
            if text(v) != v.description { mismatches.append("\(v.description) written as \(text(v))") }
        }
        #expect(mismatches.isEmpty)
        #expect(text(12) == "12")
        #expect(text(-2.5) == "-2.5")
        #expect(text(1e-5) == "1e-05")
        #expect(text(.nan) == "0")
    }

    @Test func integersAreWrittenAsDescriptionWritesThem() {
        var values = [
            0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 123456, 1_000_000_007, Int.max, Int.min, -1, -10, -99,
        ]
        var rng = SeededGenerator(seed: 3)
        for _ in 0..<2_000 { values.append(Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 63)) }
        for v in values {
            var b = LogBuffer()
            b.int(v)
            #expect(String(decoding: b.bytes, as: UTF8.self) == v.description)
        }
        var u = LogBuffer()
        u.uint(UInt64.max)
        #expect(String(decoding: u.bytes, as: UTF8.self) == UInt64.max.description)
    }

    @Test func logBufferCopiesDoNotShareWrites() {
        var a = LogBuffer(capacity: 8)
        a.raw("abc")
        var b = a
        b.raw("def")
        a.int(-42)
        #expect(String(decoding: a.bytes, as: UTF8.self) == "abc-42")
        #expect(String(decoding: b.bytes, as: UTF8.self) == "abcdef")
        // A whole event line checks once, then writes without checking: still its own copy.
        var c = LogBuffer(capacity: 8)
        c.raw("x")
        var d = c
        d.event(.weightChanged(id: NodeID(rawValue: 3), weight: 2), seq: 7, t: 0.5)
        c.event(.weightChanged(id: NodeID(rawValue: 4), weight: 1), seq: 8, t: 1)
        #expect(String(decoding: c.bytes, as: UTF8.self) == #"x{"seq":8,"t":1,"ev":"weight","id":4,"weight":1}"# + "\n")
        #expect(
            String(decoding: d.bytes, as: UTF8.self) == #"x{"seq":7,"t":0.5,"ev":"weight","id":3,"weight":2}"# + "\n")
        var s = LogBuffer(capacity: 4)
        s.string("q\"\\\n\u{1}é")
        #expect(String(decoding: s.bytes, as: UTF8.self) == #""q\"\\\n\u0001é""#)
    }

    /// The same log read through the fast path and, with a space after every comma (a
    /// layout only the general path reads), through the general path.
    @Test func fastAndGeneralPathsReadTheSameLog() throws {
        let events = randomHistory(seed: 11, events: 3000)
        let tmp = TemporaryDirectory("taskgraph-hist")
        defer { tmp.remove() }
        let path = try writeLog(events, in: tmp, snapshotEvery: 100)
        let fast = try LogReader.load(path: path)
        let bytes = try LogReader.readFile(path)
        var spaced: [UInt8] = []
        var inString = false
        var escaped = false
        for (i, c) in bytes.enumerated() {
            spaced.append(c)
            if escaped {
                escaped = false
                continue
            }
            if c == 92 {
                escaped = inString
                continue
            }
            if c == 34 { inString.toggle() }
            if c == 44 && !inString && i > bytes.firstIndex(of: 10)! { spaced.append(32) }
        }
        let general = try LogReader.parse(spaced, name: "spaced")
        #expect(fast.events.count == general.events.count)
        #expect(fast.events.elementsEqual(general.events) { "\($0)" == "\($1)" })
        #expect(fast.checkpoints.map(\.eventCount) == general.checkpoints.map(\.eventCount))
        #expect(fast.finalSnapshot.nodes == general.finalSnapshot.nodes)
        #expect(fast.lastSeq == general.lastSeq)
    }

    @Test func fastPathLeavesBadLinesToTheGeneralPath() throws {
        let log = """
            {"format":"taskgraph-log","version":1,"created":"x","producer":"p"}
            {"seq":1,"t":0,"ev":"add","id":0,"kind":"task","name":"a","weight":1}
            {"seq":2,"t":0.5,"ev":"progress","id":0,"fraction":1.5}

            """
        #expect(throws: LogLoadError.self) { try LogReader.parse(Array(log.utf8), name: "bad") }
        do {
            _ = try LogReader.parse(Array(log.utf8), name: "bad")
        } catch let e as LogLoadError {
            #expect(e.line == 3)
            #expect(e.message == "fraction 1.5 is outside 0...1")
        }
    }
}

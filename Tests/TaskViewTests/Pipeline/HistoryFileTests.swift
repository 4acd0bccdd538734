import Foundation
import TestSupport
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

/// The history file of a scenario (docs/taskview.md, "Run history"): bounded, private, and
/// read with one notice for what cannot be read.
@Suite struct HistoryFileTests {
    static func entry(_ n: Int) -> HistoryEntry {
        HistoryEntry(
            run: "run-\(n).jsonl", start: Double(n), seconds: 1, status: 0,
            nodes: [.init(path: "ci", outcome: "succeeded", seconds: Double(n))])
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func keepsTheNewestRunsRewritingPastTwiceTheirNumber() throws {
        let dir = TemporaryDirectory("taskview-history").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = HistoryFile(scenarioFile: "/work/ci.json", directory: dir)
        for n in 1...40 { try file.append(Self.entry(n)) }
        var lines = try Self.lines(file.path)
        #expect(lines.count == 41)
        #expect(lines[0] == #"{"format":"taskview-history","version":1,"file":"/work/ci.json"}"#)
        #expect(lines[40] == Self.entry(40).line)
        // The 41st run: the file keeps the newest 20.
        try file.append(Self.entry(41))
        lines = try Self.lines(file.path)
        #expect(lines.count == 21)
        #expect(lines.dropFirst() == ArraySlice((22...41).map { Self.entry($0).line }))
        #expect(file.load(limit: 100) { Issue.record("notice: \($0)") } == (22...41).map(Self.entry))
        #expect(file.load { _ in }.map(\.start) == (32...41).map(Double.init))
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/history").count == 1)
    }

    @Test func theDirectoryIsPrivateAndTheFileTooWhateverTheUmask() throws {
        let dir = TemporaryDirectory("taskview-history").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = umask(0o002)
        defer { umask(old) }
        let file = HistoryFile(scenarioFile: "demo:build", directory: dir)
        try file.append(Self.entry(1))
        var st = stat()
        #expect(stat(dir + "/history", &st) == 0 && st.st_mode & 0o777 == 0o700)
        #expect(stat(file.path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        // Rewritten (over another scenario's file), it stays private.
        try "{\"format\":\"taskview-history\",\"version\":1,\"file\":\"x\"}\n".write(
            toFile: file.path, atomically: false, encoding: .utf8)
        chmod(file.path, 0o644)
        try file.append(Self.entry(2))
        #expect(stat(file.path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(file.load { Issue.record("notice: \($0)") } == [Self.entry(2)])
    }

    @Test func unreadableAndOversizedLinesAreSkippedWithOneNotice() throws {
        let dir = TemporaryDirectory("taskview-history").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = HistoryFile(scenarioFile: "/work/ci.json", directory: dir)
        try file.append(Self.entry(1))
        let long =
            #"{"run":"x","start":1,"status":0,"nodes":[],"pad":""#
            + String(repeating: "x", count: HistoryEntry.maxLineBytes) + "\"}"
        let handle = try #require(FileHandle(forWritingAtPath: file.path))
        handle.seekToEndOfFile()
        handle.write(Data(("{\"run\":\"cut\",\"sta\n" + long + "\n" + Self.entry(2).line + "\n").utf8))
        handle.closeFile()
        var notices: [String] = []
        #expect(file.load { notices.append($0) } == [Self.entry(1), Self.entry(2)])
        #expect(notices == ["history \(file.path):3 unreadable, skipped (and 1 more line)"])
        // The next run's entry is appended after them; they stay skipped.
        try file.append(Self.entry(3))
        notices = []
        #expect(file.load { notices.append($0) } == [Self.entry(1), Self.entry(2), Self.entry(3)])
        #expect(notices.count == 1)
    }

    @Test func aFileTooLargeOrForAnotherScenarioIsSkippedWithOneNotice() throws {
        let dir = TemporaryDirectory("taskview-history").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = HistoryFile(scenarioFile: "/work/ci.json", directory: dir)
        try file.append(Self.entry(1))
        #expect(truncate(file.path, off_t(HistoryFile.maxFileBytes + 1)) == 0)
        var notices: [String] = []
        #expect(file.load { notices.append($0) } == [])
        #expect(notices == ["history \(file.path) is larger than 16 MiB, skipped"])
        // The next run starts the file afresh.
        try file.append(Self.entry(2))
        #expect(try Self.lines(file.path).count == 2)
        #expect(file.load { Issue.record("notice: \($0)") } == [Self.entry(2)])

        let other = HistoryFile(scenarioFile: "/work/other.json", directory: dir)
        try FileManager.default.copyItem(atPath: file.path, toPath: other.path)
        notices = []
        #expect(other.load { notices.append($0) } == [])
        #expect(notices == ["history \(other.path):1 is not the history of /work/other.json, skipped"])
        // No history file yet: no history, nothing to say.
        #expect(HistoryFile(scenarioFile: "/work/new.json", directory: dir).load { notices.append($0) } == [])
        #expect(notices.count == 1)
    }
}

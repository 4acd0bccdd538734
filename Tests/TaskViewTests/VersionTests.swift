import TestSupport
import Testing

@testable import TaskGraph

#if canImport(Glibc)
    import Glibc
#endif

/// One version everywhere: `taskview --version`, CHANGELOG.md's newest release and the
/// `producer` of the logs taskview records all say `TaskGraphVersion.current`.
@Suite struct VersionTests {
    /// The package root.
    static let root = packageRoot()

    @Test func versionIsSemantic() {
        let parts = TaskGraphVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
    }

    @Test func taskviewPrintsTheVersion() throws {
        let (status, output) = try Self.taskview("--version")
        #expect(status == 0)
        #expect(output == TaskGraphVersion.current + "\n")
    }

    @Test func changelogsNewestReleaseIsTheVersion() throws {
        let text = String(decoding: try LogReader.readFile(Self.root + "/CHANGELOG.md"), as: UTF8.self)
        // Keep a Changelog: `## [Unreleased]` may come first; the first `## [x.y.z]` is the newest release.
        let releases = text.split(separator: "\n").filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let newest = try #require(releases.first)
        let version = newest.dropFirst("## [".count).prefix { $0 != "]" }
        #expect(String(version) == TaskGraphVersion.current)
    }

    @Test func recordedLogsNameTaskviewAndItsVersion() throws {
        let tmp = TemporaryDirectory("taskview-version")
        defer { tmp.remove() }
        let path = tmp.file("log.jsonl")
        defer { unlink(path) }
        let (status, _) = try Self.taskview("demo flaky --headless --record \(path)")
        #expect(status == 1) // its audit step fails, under an allSettled root
        let log = try LogReader.load(path: path)
        #expect(log.header.producer == "taskview \(TaskGraphVersion.current) demo flaky --headless --record \(path)")
    }

    /// Runs the taskview built beside this test bundle with `arguments` (shell words);
    /// its exit status and stdout.
    static func taskview(_ arguments: String) throws -> (Int32, String) {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        try #require(n > 0)
        let exe = String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let dir = exe.split(separator: "/").dropLast().joined(separator: "/")
        let bin = "/\(dir)/taskview"
        try #require(access(bin, X_OK) == 0, "taskview is not built beside the tests (\(bin)): swift build first")
        let pipe = try #require(popen("'\(bin)' \(arguments) 2>/dev/null", "r"))
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = fread(&chunk, 1, chunk.count, pipe)
            if got == 0 { break }
            out += chunk.prefix(got)
        }
        let status = pclose(pipe)
        return ((status >> 8) & 0xff, String(decoding: out, as: UTF8.self))
    }
}

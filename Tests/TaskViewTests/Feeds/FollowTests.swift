import TaskGraph
import Testing

@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// `replay --follow`: a log written progressively is read line by line as it grows.
@Suite struct FollowTests {
    /// A new empty log file, open for appending, and its path.
    func growingLog() -> (fd: Int32, path: String) {
        var template = Array("/tmp/taskview-follow-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        return (fd, String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    func append(_ fd: Int32, _ text: String) {
        var t = text
        t.withUTF8 { _ = write(fd, $0.baseAddress, $0.count) }
    }

    @Test func followsAGrowingLogUntilItsEnd() throws {
        let (fd, path) = growingLog()
        defer {
            close(fd)
            unlink(path)
        }
        append(fd, HostileLogTests.goodHeader + "\n")
        let follower = try LogFollower(path: path)
        var tree = TreeModel()
        #expect(try follower.poll(into: &tree).lines.isEmpty)
        append(
            fd,
            #"{"seq":1,"t":0,"ev":"snapshot","part":1,"parts":1,"nodes":[]}"# + "\n"
                + #"{"seq":2,"t":0,"ev":"add","id":0,"kind":"sequential","name":"root","weight":1}"# + "\n"
                + #"{"seq":3,"t":0.5,"ev":"state","id":0,"state":"executing"}"# + "\n"
                + #"{"seq":4,"t":0.5,"ev":"add","id":1,"kind":"task","name":"step","weight":1,"parent":0,"index":0}"#)
        // The last line has no newline yet: it waits.
        let first = try follower.poll(into: &tree)
        #expect(first.lines == ["[0.500] #0 root: executing"])
        #expect(tree.liveCount == 1)
        append(fd, "\n" + #"{"seq":5,"t":1,"ev":"state","id":1,"state":"executing"}"# + "\n")
        #expect(try follower.poll(into: &tree).lines == ["[1.000] #1 step: executing"])
        #expect(tree.liveCount == 2)
        #expect(!follower.ended)
        #expect(try follower.poll(into: &tree).changed == false)
        append(
            fd,
            #"{"seq":6,"t":2,"ev":"state","id":1,"state":"completed"}"# + "\n"
                + #"{"seq":7,"t":2,"ev":"state","id":0,"state":"completed"}"# + "\n"
                + #"{"seq":8,"t":2,"ev":"end","summary":{"succeeded":2}}"# + "\n")
        #expect(try follower.poll(into: &tree).lines == ["[2.000] #1 step: succeeded", "[2.000] #0 root: succeeded"])
        #expect(follower.ended)
        #expect(LogFollower.exitStatus(tree) == 0)
    }

    @Test func aFollowedScenarioRunExitsAsItsStepsSay() throws {
        let (fd, path) = growingLog()
        defer {
            close(fd)
            unlink(path)
        }
        // An allSettled root succeeds in the graph though its test failed: `run` exits 1, and
        // so does following its log.
        let lines = [
            #"{"format":"taskgraph-log","version":1,"created":"2026-01-01T00:00:00Z","producer":"taskview","scenario":"ci"}"#,
            #"{"seq":1,"t":0,"ev":"snapshot","part":1,"parts":1,"nodes":[]}"#,
            #"{"seq":2,"t":0,"ev":"add","id":0,"kind":"allSettled","name":"ci","weight":1}"#,
            #"{"seq":3,"t":0,"ev":"add","id":1,"kind":"command","name":"test","weight":1,"parent":0,"index":0}"#,
            #"{"seq":4,"t":0,"ev":"state","id":0,"state":"executing"}"#,
            #"{"seq":5,"t":0,"ev":"state","id":1,"state":"executing"}"#,
            #"{"seq":6,"t":1,"ev":"state","id":1,"state":"completed","failed":true,"message":"exit status 1"}"#,
            #"{"seq":7,"t":1,"ev":"state","id":0,"state":"completed"}"#,
            #"{"seq":8,"t":1,"ev":"end","summary":{}}"#,
        ]
        append(fd, lines.joined(separator: "\n") + "\n")
        let follower = try LogFollower(path: path)
        var tree = TreeModel()
        _ = try follower.poll(into: &tree)
        #expect(follower.ended && follower.judgesSteps)
        #expect(LogFollower.exitStatus(tree, judgesSteps: follower.judgesSteps) == 1)
        #expect(LogFollower.exitStatus(tree) == 0) // the root's own outcome
    }

    @Test func aBadLineIsAnErrorNamingIt() throws {
        let (fd, path) = growingLog()
        defer {
            close(fd)
            unlink(path)
        }
        append(fd, HostileLogTests.goodHeader + "\n" + #"{"seq":1,"t":0,"ev":"add","id":0}"# + "\n")
        let follower = try LogFollower(path: path)
        var tree = TreeModel()
        do {
            _ = try follower.poll(into: &tree)
            Issue.record("accepted a bad line")
        } catch let e as LogLoadError {
            #expect(e.line == 2)
        }
        #expect(throws: LogLoadError.self) { _ = try LogFollower(path: "/nonexistent/x.jsonl") }
    }
}

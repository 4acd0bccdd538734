import Foundation
import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore
@testable import TaskViewIO

#if canImport(Glibc)
    import Glibc
#endif

/// `AtomicFileWriter`: where an export goes. Devices and FIFOs are written in place, symlinks
/// followed, regular files replaced whole; a failure leaves neither half a file nor a temp file.
@Suite struct OutputFileTests {
    /// A fresh empty directory under /tmp.
    func makeDir() -> String { TemporaryDirectory("taskview-out").path }

    func names(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    func contents(_ path: String) throws -> String {
        String(decoding: try LogReader.readFile(path), as: UTF8.self)
    }

    func fileType(_ path: String, follow: Bool = false) -> mode_t {
        var st = stat()
        let r = follow ? stat(path, &st) : lstat(path, &st)
        return r == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func devNullIsWrittenInPlaceAndStaysACharacterDevice() throws {
        try AtomicFileWriter.write(Array("hello\n".utf8), to: "/dev/null")
        #expect(fileType("/dev/null") == S_IFCHR)
    }

    @Test func aFullDeviceIsAnErrorNotAReplacement() {
        guard fileType("/dev/full") == S_IFCHR else { return }
        #expect(throws: AtomicFileWriter.WriteError.self) {
            try AtomicFileWriter.write(Array("x".utf8), to: "/dev/full")
        }
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    @Test func aFIFOIsWrittenInPlaceToItsReader() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader opens and drains on another thread (the writer's open waits for it).
        final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
        let box = Box()
        var reader = pthread_t()
        let path = strdup(fifo)!
        let ctx = Unmanaged.passRetained(box).toOpaque()
        struct Args {
            var path: UnsafeMutablePointer<CChar>
            var box: UnsafeMutableRawPointer
        }
        let args = UnsafeMutablePointer<Args>.allocate(capacity: 1)
        args.initialize(to: Args(path: path, box: ctx))
        pthread_create(
            &reader, nil,
            { raw in
                let a = raw!.assumingMemoryBound(to: Args.self).pointee
                let box = Unmanaged<Box>.fromOpaque(a.box).takeRetainedValue()
                let fd = open(a.path, O_RDONLY)
                var buf = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = read(fd, &buf, buf.count)
                    if n <= 0 { break }
                    box.bytes += buf[..<n]
                }
                close(fd)
                return nil
            }, args)
        let payload = Array(repeating: UInt8(ascii: "z"), count: 200_000)
        try AtomicFileWriter.write(payload, to: fifo)
        pthread_join(reader, nil)
        args.deallocate()
        free(path)
        #expect(box.bytes == payload)
        #expect(fileType(fifo) == S_IFIFO)
        #expect(names(in: dir) == ["pipe"])
    }

    @Test func aSymlinkStaysALinkToTheUpdatedFile() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFileWriter.write(Array("old".utf8), to: dir + "/real.json")
        #expect(symlink("real.json", dir + "/link.json") == 0)
        try AtomicFileWriter.write(Array("new".utf8), to: dir + "/link.json")
        #expect(fileType(dir + "/link.json") == S_IFLNK)
        #expect(try contents(dir + "/real.json") == "new")
        #expect(names(in: dir) == ["link.json", "real.json"])
    }

    @Test func aDanglingSymlinkCreatesItsTarget() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(symlink(dir + "/target.json", dir + "/link.json") == 0)
        try AtomicFileWriter.write(Array("made".utf8), to: dir + "/link.json")
        #expect(fileType(dir + "/link.json") == S_IFLNK)
        #expect(try contents(dir + "/target.json") == "made")
    }

    @Test func aSymlinkToDevNullWritesInPlace() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(symlink("/dev/null", dir + "/null") == 0)
        try AtomicFileWriter.write(Array("x".utf8), to: dir + "/null")
        #expect(fileType(dir + "/null") == S_IFLNK)
        #expect(fileType("/dev/null") == S_IFCHR)
    }

    @Test func aRegularFileIsReplacedWholeKeepingItsMode() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.json"
        try AtomicFileWriter.write(Array("first version, long".utf8), to: path)
        #expect(chmod(path, 0o640) == 0)
        var before = stat()
        stat(path, &before)
        try AtomicFileWriter.write(Array("second".utf8), to: path)
        var after = stat()
        stat(path, &after)
        #expect(try contents(path) == "second")
        #expect(after.st_ino != before.st_ino) // a new file renamed over: atomic for readers
        #expect(after.st_mode & 0o7777 == 0o640)
        #expect(names(in: dir) == ["out.json"])
    }

    @Test func aNewFileIsOwnerOnly() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFileWriter.write(Array("trace".utf8), to: dir + "/new.json")
        var st = stat()
        stat(dir + "/new.json", &st)
        #expect(st.st_mode & 0o7777 == 0o600)
    }

    @Test func aFailureMidWriteLeavesTheOldFileAndNoTempFile() throws {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.json"
        try AtomicFileWriter.write(Array("old content".utf8), to: path)
        var calls = 0
        let failing: AtomicFileWriter.Writer = { fd, p, n in
            calls += 1
            if calls == 1 { return Glibc.write(fd, p, min(n, 3)) } // some bytes, then ENOSPC
            errno = ENOSPC
            return -1
        }
        #expect(throws: AtomicFileWriter.WriteError.self) {
            try AtomicFileWriter.write(Array("new content that never lands".utf8), to: path, using: failing)
        }
        #expect(try contents(path) == "old content")
        #expect(names(in: dir) == ["out.json"])
        // A new file that fails is not created at all.
        calls = 0
        #expect(throws: AtomicFileWriter.WriteError.self) {
            try AtomicFileWriter.write(Array("abcdef".utf8), to: dir + "/new.json", using: failing)
        }
        #expect(names(in: dir) == ["out.json"])
    }

    @Test func aMissingDirectoryIsAClearError() {
        do {
            try AtomicFileWriter.write(Array("x".utf8), to: "/nonexistent-dir-\(getpid())/out.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("nonexistent-dir"))
            #expect(error.description.contains("No such file"))
        }
    }

    @Test func aSymlinkLoopIsAnError() {
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        symlink(dir + "/a", dir + "/b")
        symlink(dir + "/b", dir + "/a")
        #expect(throws: AtomicFileWriter.WriteError.self) {
            try AtomicFileWriter.write(Array("x".utf8), to: dir + "/a")
        }
        #expect(fileType(dir + "/a") == S_IFLNK)
    }

    /// The recorder (`--record`) opens its log in place (no rename), so a device stays a
    /// device and a symlink stays a link to the written log.
    @Test func recordingToDevNullOrThroughASymlinkWritesInPlace() throws {
        let graph = Graph(clock: VirtualClock())
        let r1 = try GraphRecorder(graph: graph, path: "/dev/null")
        r1.finish()
        #expect(fileType("/dev/null") == S_IFCHR)
        let dir = makeDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(symlink("log.jsonl", dir + "/link.jsonl") == 0)
        let r2 = try GraphRecorder(graph: graph, path: dir + "/link.jsonl")
        r2.finish()
        #expect(fileType(dir + "/link.jsonl") == S_IFLNK)
        #expect(try contents(dir + "/log.jsonl").hasPrefix("{\"format\":\"taskgraph-log\""))
    }
}

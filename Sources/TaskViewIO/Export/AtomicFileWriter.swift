import TaskGraph
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a command's whole output (an export) to a path without ever leaving half of it, and
/// without ever replacing something that is not a regular file:
///
/// - `-` is standard output.
/// - A symlink is followed to its target (the link itself stays).
/// - An existing target that is not a regular file (a device such as `/dev/null`, a FIFO, a
///   terminal) is written in place: renaming over it would replace the device by a file.
/// - A regular file, or a new one, is written to a temporary file next to it and renamed over
///   it, so readers see the old content or the new, never half; a failure removes the
///   temporary file and leaves the old content. A new file is 0600 whatever the umask
///   (`PrivateFile`); a replaced one keeps its mode and owner.
package enum AtomicFileWriter {
    /// Why the output could not be written (`message` is the system's reason).
    package struct WriteError: Error, CustomStringConvertible, Sendable {
        package let path: String
        package let message: String
        package var description: String { "cannot write \(path): \(message)" }
    }

    /// Writes `bytes` to `path` by the rules above.
    package static func write(_ bytes: [UInt8], to path: String) throws(WriteError) {
        try write(bytes, to: path, using: systemWrite)
    }

    /// The system call that writes, replaceable so tests can make a write fail midway.
    typealias Writer = (Int32, UnsafeRawPointer, Int) -> Int

    static func write(_ bytes: [UInt8], to path: String, using writer: Writer) throws(WriteError) {
        func fail(_ err: Int32 = errno) -> WriteError {
            WriteError(path: path, message: String(cString: strerror(err)))
        }
        if path == "-" {
            if let err = writeAll(bytes, to: 1, using: writer) { throw fail(err) }
            return
        }
        guard let target = resolveLinks(path) else { throw fail(ELOOP) }
        var st = stat()
        let exists = stat(target, &st) == 0
        if !exists && errno != ENOENT { throw fail() }
        if exists && (st.st_mode & S_IFMT) != S_IFREG {
            // A device, FIFO or socket: in place (no O_CREAT, so nothing new appears).
            let fd = open(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw fail() }
            let err = writeAll(bytes, to: fd, using: writer)
            let closed = close(fd)
            if let err { throw fail(err) }
            if closed != 0 { throw fail() }
            return
        }
        try replace(
            target, with: bytes, mode: exists ? st.st_mode & 0o7777 : PrivateFile.fileMode,
            owner: exists ? (st.st_uid, st.st_gid) : nil, using: writer, fail: fail)
    }

    /// Temporary file in the target's directory, written, synced, renamed over the target.
    private static func replace(
        _ target: String, with bytes: [UInt8], mode: mode_t,
        owner: (uid_t, gid_t)?, using writer: Writer,
        fail: (Int32) -> WriteError
    ) throws(WriteError) {
        let slash = target.lastIndex(of: "/")
        let dir = slash.map { String(target[...$0]) } ?? ""
        let base = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(dir).\(base).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw fail(errno) }
        let tmp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var err = writeAll(bytes, to: fd, using: writer)
        if err == nil, fchmod(fd, mode) != 0 { err = errno }
        if err == nil, let (uid, gid) = owner, getuid() == 0 { _ = fchown(fd, uid, gid) }
        if err == nil, fsync(fd) != 0 { err = errno }
        if close(fd) != 0, err == nil { err = errno }
        if err == nil, rename(tmp, target) != 0 { err = errno }
        if let err {
            unlink(tmp)
            throw fail(err)
        }
    }

    /// `path` with a final-component symlink chain followed (relative targets resolve
    /// against the link's directory); nil after 40 links (a loop).
    static func resolveLinks(_ path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buf, buf.count - 1)
            guard n > 0 else { return current }
            let link = String(decoding: buf[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") {
                current = link
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + link
            } else {
                current = link
            }
        }
        return nil
    }

    /// Writes every byte, retrying short writes and EINTR; the errno of a failure, or nil.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32, using writer: Writer) -> Int32? {
        bytes.withUnsafeBytes { buf -> Int32? in
            guard let base = buf.baseAddress else { return nil }
            var off = 0
            while off < buf.count {
                let n = writer(fd, base + off, buf.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                off += n
            }
            return nil
        }
    }
}

// `AtomicFileWriter.write` shadows the C call inside the enum; at file scope the unqualified name
// reaches whichever C library was imported above (no module name, so every branch builds).
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }

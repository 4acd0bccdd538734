#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files and directories only their owner may read: logs, output files, exports and history
/// hold every output line of a run (`password=...` included), so they are created 0600 and
/// directories 0700 whatever the umask (a mode is set again after creation: a umask such as
/// 0377 would otherwise narrow it, and the open mode alone cannot widen it).
package enum PrivateFile {
    /// The mode of every file taskview creates.
    package static let fileMode: mode_t = 0o600
    /// The mode of every directory taskview creates.
    package static let directoryMode: mode_t = 0o700
    /// A C `FILE` stream.
    package typealias Stream = UnsafeMutablePointer<FILE>

    /// Opens `path` for writing, created 0600 or truncated (`flags` adds to
    /// `O_WRONLY | O_CREAT | O_CLOEXEC`, e.g. `O_TRUNC`, `O_APPEND` or `O_EXCL`). A regular
    /// file gets mode 0600 (an existing one too: what it will hold is as private as a new
    /// one); a device or FIFO keeps its mode. Returns the descriptor, or the errno.
    package static func open(_ path: String, flags: Int32 = O_TRUNC) -> Result<Int32, PrivateFileError> {
        let fd = systemOpen(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, fileMode)
        guard fd >= 0 else { return .failure(PrivateFileError(path: path, errno: errno)) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_mode & 0o7777 != fileMode {
            if fchmod(fd, fileMode) != 0 {
                let err = errno
                _ = systemClose(fd)
                return .failure(PrivateFileError(path: path, errno: err))
            }
        }
        return .success(fd)
    }

    /// Opens `path` as a buffered `FILE` for writing (`"w"` truncates, `"a"` appends), by
    /// `open(_:flags:)`'s rules.
    package static func stream(_ path: String, append: Bool = false) -> Result<Stream, PrivateFileError> {
        switch open(path, flags: append ? O_APPEND : O_TRUNC) {
        case .failure(let e): return .failure(e)
        case .success(let fd):
            guard let f = fdopen(fd, append ? "a" : "w") else {
                let err = errno
                _ = systemClose(fd)
                return .failure(PrivateFileError(path: path, errno: err))
            }
            return .success(f)
        }
    }

    /// Makes the directory `path` with mode 0700 (whatever the umask); an existing directory
    /// is left as it is. Throws with the system's reason otherwise.
    package static func makeDirectory(_ path: String) throws(PrivateFileError) {
        if mkdir(path, directoryMode) == 0 {
            // Made here: exactly 0700, not what the umask left of it.
            if chmod(path, directoryMode) != 0 { throw PrivateFileError(path: path, errno: errno) }
            return
        }
        let err = errno
        var st = stat()
        if err == EEXIST, stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { return }
        throw PrivateFileError(path: path, errno: err == EEXIST ? ENOTDIR : err)
    }
}

/// A file or directory that could not be made or written: its path and the system's reason.
package struct PrivateFileError: Error, CustomStringConvertible, Sendable {
    /// The path.
    package let path: String
    /// The system's reason (`strerror`), e.g. "No space left on device".
    package let reason: String

    package init(path: String, errno: Int32) {
        self.path = path
        self.reason = String(cString: strerror(errno))
    }

    /// `cannot write PATH: REASON`.
    package var description: String { "cannot write \(path): \(reason)" }
}

// `PrivateFile.open` shadows the C call inside the enum; at file scope the unqualified names
// reach whichever C library was imported above.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }

import TaskViewCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `taskview attach --ssh HOST`: lists the programs of another machine, then forwards
/// their sockets with `ssh -N -L` to sockets in a private temporary directory of ours
/// (mode 0700), attached like any local socket. No new listener and no new
/// authentication: only who may ssh to that account gets in. `close()` ends the forwards
/// and removes the directory.
package final class SSHForward {
    package let host: String
    /// The private temporary directory that holds the local sockets and ssh's messages.
    package let directory: String
    private var children: [SSHChild] = []
    private var closed = false

    /// Longest wait for ssh to connect, authenticate (perhaps asking for a password) and
    /// listen; ssh's own ConnectTimeout is shorter.
    static let forwardTimeout = 120.0
    /// Longest wait for the remote listing.
    static let listTimeout = 60.0

    /// A session with `host`; makes the temporary directory. `host` must not start with `-`
    /// (ssh would take it for an option).
    package init(host: String) throws(SSHFailure) {
        guard !host.isEmpty, !host.hasPrefix("-"),
            !host.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 } == true })
        else { throw SSHFailure("--ssh: not a host name: \(Sanitizer.clean(host))") }
        self.host = host
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/taskview-ssh.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw SSHFailure(
                "cannot make a temporary directory in \(Sanitizer.clean(base)): " + String(cString: strerror(errno)))
        }
        directory = String(cString: made)
    }

    deinit { close() }

    /// The attachable programs on the host (ssh's own error when it fails).
    package func list() throws(SSHFailure) -> [RemotePrograms.Program] {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SSHFailure("cannot make a pipe: " + String(cString: strerror(errno))) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let command = "sh -c " + RemotePrograms.shellQuoted(RemotePrograms.listScript)
        let child: SSHChild
        do {
            child = try SSHChild.start(
                ["-o", "ConnectTimeout=20", "--", host, command], errorFile: directory + "/list.err", stdoutFD: fds[1])
        } catch {
            closeDescriptor(fds[0])
            closeDescriptor(fds[1])
            throw error
        }
        closeDescriptor(fds[1])
        let output = readAll(fds[0], limit: 1 << 20, timeout: Self.listTimeout)
        closeDescriptor(fds[0])
        guard let output else {
            child.end()
            throw SSHFailure("ssh \(Sanitizer.clean(host)): no answer within \(Int(Self.listTimeout)) s")
        }
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard code == 0 else {
            let said = child.said()
            throw SSHFailure(said.isEmpty ? "ssh \(Sanitizer.clean(host)) exited with status \(code)" : said)
        }
        return RemotePrograms.parse(String(decoding: output, as: UTF8.self))
    }

    /// Forwards `remoteSocket` (a path on the host) to a new socket in `directory` and
    /// returns its path once ssh listens there. `interrupted` is asked while waiting.
    package func forward(_ remoteSocket: String, interrupted: () -> Bool) throws(SSHFailure) -> String {
        guard !remoteSocket.contains(":"), !remoteSocket.contains(where: { $0.asciiValue.map { $0 < 32 } == true })
        else {
            throw SSHFailure("cannot forward \(Sanitizer.clean(remoteSocket)): a ':' or control character in the path")
        }
        let local = directory + "/\(children.count + 1).sock"
        let child = try SSHChild.start(
            [
                "-N", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes", "-o", "ConnectTimeout=20",
                "-L", local + ":" + remoteSocket, "--", host,
            ], errorFile: directory + "/\(children.count + 1).err")
        children.append(child)
        var waited = 0.0
        while true {
            var st = stat()
            if stat(local, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { return local }
            if let code = child.exited() {
                let said = child.said()
                throw SSHFailure(said.isEmpty ? "ssh \(Sanitizer.clean(host)) exited with status \(code)" : said)
            }
            if interrupted() { throw SSHFailure("interrupted while ssh connected to \(Sanitizer.clean(host))") }
            if waited > Self.forwardTimeout {
                throw SSHFailure("ssh \(Sanitizer.clean(host)): no forward after \(Int(Self.forwardTimeout)) s")
            }
            usleep(20_000)
            waited += 0.02
        }
    }

    /// What the forward of socket number `index` (0-based) said on stderr (ssh names a
    /// remote socket it could not reach there), sanitized.
    package func messages(forwardAt index: Int) -> String {
        index < children.count ? children[index].said() : ""
    }

    /// Ends every forward and removes the directory with what it holds (once).
    package func close() {
        guard !closed else { return }
        closed = true
        for child in children { child.end() }
        children = []
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { unlink(directory + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(directory)
    }
}

/// Everything `fd` gives until end of file (at most `limit` bytes kept), or nil when it
/// did not end within `timeout` seconds.
private func readAll(_ fd: Int32, limit: Int, timeout: Double) -> [UInt8]? {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16384)
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    while true {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let left = timeout - (Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9)
        guard left > 0 else { return nil }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, Int32(min(left, 1) * 1000))
        if r < 0 && errno == EINTR { continue }
        if r <= 0 { continue }
        let n = read(fd, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return bytes }
        if bytes.count < limit { bytes.append(contentsOf: buffer[0..<min(n, limit - bytes.count)]) }
    }
}

/// `close(2)`, callable inside a type with its own `close()`.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

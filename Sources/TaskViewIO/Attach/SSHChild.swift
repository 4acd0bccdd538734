import TaskGraphProcess
import TaskViewCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An `ssh` process of `taskview attach --ssh`: started with `posix_spawn` in our own
/// process group (so ssh may ask for a password or a host key on the terminal), standard
/// input from /dev/null (ssh never takes the dashboard's keys), standard error into a file
/// (ssh's own words when it fails), and the watchdog's mark (it ends with us, even after
/// `kill -9`). `TASKVIEW_SSH_COMMAND`, when set, is the command run instead of `ssh`
/// (through `sh -c`, as git does with `GIT_SSH_COMMAND`).
struct SSHChild {
    let pid: pid_t
    let errorFile: String

    /// Starts ssh with `arguments`; its standard output goes to `stdoutFD` (-1: /dev/null).
    static func start(_ arguments: [String], errorFile: String, stdoutFD: Int32 = -1) throws(SSHFailure) -> SSHChild {
        ProcessTeardown.startWatchdog()
        var argv: [String]
        if let custom = getenv("TASKVIEW_SSH_COMMAND").map({ String(cString: $0) }), !custom.isEmpty {
            argv = ["/bin/sh", "-c", custom + " \"$@\"", "ssh"] + arguments
        } else {
            argv = ["ssh"] + arguments
        }
        var env: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if !text.hasPrefix("TASKGRAPH_COMMAND=") { env.append(text) }
            p += 1
        }
        env.append(ProcessTeardown.helperMarkEntry())

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if stdoutFD >= 0 {
            posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var pid: pid_t = 0
        let code = withCStrings(argv) { cargv in
            withCStrings(env) { cenv in posix_spawnp(&pid, cargv[0]!, &actions, nil, cargv, cenv) }
        }
        guard code == 0 else {
            throw SSHFailure("cannot start \(argv[0]): " + String(cString: strerror(code)))
        }
        return SSHChild(pid: pid, errorFile: errorFile)
    }

    /// The exit status if ssh has ended (collected), else nil.
    func exited() -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Ends ssh: SIGTERM, SIGKILL after a second, collected.
    func end() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// What ssh said on its standard error: its last lines, sanitized, at most 2 KiB.
    func said() -> String {
        let fd = open(errorFile, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        let lines = String(decoding: bytes.suffix(2048), as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { Sanitizer.clean(String($0)) }
            .filter { !$0.isEmpty }
        return lines.suffix(4).joined(separator: "; ")
    }
}

/// Why `attach --ssh` could not go on; `description` is the message for stderr.
package struct SSHFailure: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// `body` with `strings` as a NULL-terminated C array.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    return body(pointers)
}

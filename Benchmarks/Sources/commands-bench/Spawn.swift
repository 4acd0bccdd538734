// Child processes for C4 and C5: started with posix_spawn, waited for with wait4 (exit status
// and peak resident memory), or run to the end with their stdout captured.
import Foundation

/// A finished child: its wait status and its peak resident set (`ru_maxrss`, KiB).
struct Finished {
    let status: Int32
    let maxRSSKiB: Int
    /// Exited normally with status 0.
    var succeeded: Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }
}

/// Wall-clock nanoseconds (CLOCK_REALTIME), the clock `date +%s%N` prints.
func realtimeNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Starts `args` (args[0] an absolute path) with stdin from /dev/null, stdout to
/// `stdout` (a path, truncated) or the write end `stdoutFD`, stderr to /dev/null, and
/// `extraEnvironment` added to ours.
func spawn(
    _ args: [String], stdout: String = "/dev/null", stdoutFD: Int32? = nil, closeFD: Int32? = nil,
    extraEnvironment: [String] = []
) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if let stdoutFD {
        posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1)
        posix_spawn_file_actions_addclose(&actions, stdoutFD)
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    if let closeFD { posix_spawn_file_actions_addclose(&actions, closeFD) }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var env: [String] = []
    var p = environ
    while let entry = p.pointee {
        env.append(String(cString: entry))
        p += 1
    }
    env += extraEnvironment
    let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
    defer {
        for a in argv { free(a) }
        for e in envp { free(e) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, args[0], &actions, nil, argv, envp)
    guard rc == 0 else { fatalError("cannot spawn \(args[0]): \(String(cString: strerror(rc)))") }
    return pid
}

/// Waits for `pid` and returns its status and peak memory.
func waitFor(_ pid: pid_t) -> Finished {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    return Finished(status: status, maxRSSKiB: Int(usage.ru_maxrss))
}

/// Runs `args` to the end and returns what it wrote to stdout.
@discardableResult
func capture(_ args: [String], extraEnvironment: [String] = []) -> String {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { fatalError("pipe failed") }
    let pid = spawn(args, stdoutFD: fds[1], closeFD: fds[0], extraEnvironment: extraEnvironment)
    close(fds[1])
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n > 0 {
            bytes += buffer[0..<n]
        } else if n == 0 || errno != EINTR {
            break
        }
    }
    close(fds[0])
    _ = waitFor(pid)
    return String(decoding: bytes, as: UTF8.self)
}

/// The absolute path of a program found on PATH, nil when there is none.
func which(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
        return "\(dir)/\(name)"
    }
    return nil
}

/// A new empty directory under the temporary directory.
func scratchDirectory(_ tag: String) -> String {
    let dir = NSTemporaryDirectory() + "commands-bench-\(tag)-\(getpid())"
    try? FileManager.default.removeItem(atPath: dir)
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

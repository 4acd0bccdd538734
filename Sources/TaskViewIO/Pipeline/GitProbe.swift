import TaskViewCore

#if canImport(Glibc)
    import Glibc
#endif

/// The git state of the directories a run's nodes work in, read once at the run's start
/// (a flaky node is judged by the inputs its run started with): for each directory inside
/// a git work tree, `HEAD`'s commit and whether tracked files differ from it.
package enum GitProbe {
    /// How long one git command may take before it is killed and the directory counts as
    /// no work tree.
    package static let timeout = 2.0

    /// The state of each of `directories` that is inside a work tree with a commit (git runs
    /// once per distinct directory; none when git is missing or times out).
    package static func inputs(of directories: some Sequence<String>) -> [String: GitInput] {
        var out: [String: GitInput] = [:]
        var tried = Set<String>()
        for dir in directories where tried.insert(dir).inserted {
            // One git per directory: `--branch` heads the changes with `# branch.oid SHA`.
            guard
                let text = run(["git", "-C", dir, "status", "--porcelain=v2", "--branch", "--untracked-files=no"])
            else { continue }
            var commit: String?
            var dirty = false
            for line in text.split(separator: "\n") {
                if line.hasPrefix("# branch.oid ") {
                    let sha = line.dropFirst(13)
                    if sha.utf8.count >= 40, sha.utf8.allSatisfy(isHexDigit) { commit = String(sha) }
                } else if !line.hasPrefix("#") {
                    dirty = true
                }
            }
            if let commit { out[dir] = GitInput(commit: commit, dirty: dirty) }
        }
        return out
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 97 && b <= 102)
    }

    /// The standard output of `args` when it exits 0 within `timeout`; its stdin and stderr
    /// are /dev/null, so nothing reaches the terminal. `GIT_OPTIONAL_LOCKS=0`: `status`
    /// leaves the index alone (a build running beside it may hold it).
    static func run(_ args: [String]) -> String? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        // Not inherited by commands spawned meanwhile on other threads past their own dup2s.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        // Its own process group: a ^C meant for taskview's commands does not reach it.
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        var env: [String] = ["GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"]
        for name in ["PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"] {
            if let v = getenv(name) { env.append(name + "=" + String(cString: v)) }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer {
            for a in argv { free(a) }
            for e in envp { free(e) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, args[0], &actions, &attr, &argv, &envp)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            return nil
        }
        defer { close(fds[0]) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = now() + timeout
        var timedOut = false
        while true {
            let left = deadline - now()
            if left <= 0 {
                timedOut = true
                break
            }
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(left * 1000) + 1)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            // `status` of a huge dirty tree: the first bytes say it is dirty.
            if bytes.count < 1 << 16 { bytes += buffer[0..<n] }
        }
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard !timedOut, status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

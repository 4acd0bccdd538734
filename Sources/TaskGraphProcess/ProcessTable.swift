#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `/proc` says about processes (Linux; elsewhere every answer is empty): who is whose
/// parent, who is a zombie, whose environment carries a command's marker.
enum ProcessTable {
    /// One process: its id, its parent's, and whether it is a zombie (it has ended and
    /// waits for its parent to collect it).
    struct Entry {
        let pid: pid_t
        let parent: pid_t
        let group: pid_t
        let zombie: Bool
    }

    /// Every process now, in /proc order.
    static func all() -> [Entry] {
        var out: [Entry] = []
        guard let dir = opendir("/proc") else { return out }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let pid = withUnsafeBytes(of: e.pointee.d_name) { raw -> pid_t in
                var v: pid_t = 0
                for b in raw {
                    if b == 0 { break }
                    guard b >= 48, b <= 57, v < 100_000_000 else { return 0 }
                    v = v * 10 + pid_t(b - 48)
                }
                return v
            }
            if pid > 0, let entry = entry(pid) { out.append(entry) }
        }
        return out
    }

    /// The process's entry, nil when it is gone (a zombie has one).
    static func entry(_ pid: pid_t) -> Entry? {
        var buf = [UInt8](repeating: 0, count: 512)
        let n = readFile("/proc/\(pid)/stat", into: &buf)
        // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses; the last ')' ends it.
        guard n > 0, let close = buf[..<n].lastIndex(of: UInt8(ascii: ")")), close + 4 < n else { return nil }
        let state = buf[close + 2]
        var i = close + 4
        func number() -> pid_t {
            var v: pid_t = 0
            while i < n, buf[i] >= 48, buf[i] <= 57 {
                v = v &* 10 &+ pid_t(buf[i] - 48)
                i += 1
            }
            i += 1
            return v
        }
        let parent = number()
        let group = number()
        return Entry(
            pid: pid, parent: parent, group: group, zombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"))
    }

    /// Whether the process exists and is not a zombie.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let e = entry(pid) else { return false }
        return !e.zombie
    }

    /// Reads environments (`/proc/PID/environ`) into one buffer, kept between processes.
    struct EnvironmentReader {
        private var buf = [UInt8](repeating: 0, count: 1 << 14)
        private static let prefix = Array(CommandMarker.variable.utf8) + [UInt8(ascii: "=")]

        /// Whether `pid`'s environment has `TASKGRAPH_COMMAND=` with a word for which
        /// `matches` is true. False for zombies and for processes this one may not read.
        mutating func hasMarker(_ pid: pid_t, _ matches: (Substring) -> Bool) -> Bool {
            let fd = open("/proc/\(pid)/environ", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var n = 0
            while true {
                if n == buf.count {
                    if buf.count >= 1 << 22 { break }
                    buf.append(contentsOf: repeatElement(0, count: buf.count))
                }
                let r = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress! + n, $0.count - n) }
                if r < 0 && errno == EINTR { continue }
                if r <= 0 { break }
                n += r
            }
            for entry in buf[..<n].split(separator: 0) where entry.starts(with: Self.prefix) {
                let value = String(decoding: entry.dropFirst(Self.prefix.count), as: UTF8.self)
                if value.split(separator: " ").contains(where: matches) { return true }
            }
            return false
        }
    }

    /// The descendants of `root` (children, their children, ...), zombies included.
    static func descendants(of root: pid_t, in entries: [Entry]) -> [Entry] {
        var children: [pid_t: [Entry]] = [:]
        for e in entries { children[e.parent, default: []].append(e) }
        var out: [Entry] = []
        var stack = children[root] ?? []
        while let e = stack.popLast() {
            out.append(e)
            stack.append(contentsOf: children[e.pid] ?? [])
        }
        return out
    }

    private static func readFile(_ path: String, into buf: inout [UInt8]) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let r = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        return max(0, r)
    }
}

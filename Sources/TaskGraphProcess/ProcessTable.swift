#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `/proc` says about processes (Linux; elsewhere every answer is empty): who is whose
/// parent, who is a zombie, whose environment carries a command's marker.
enum ProcessTable {
    /// One process: its id, its parent's, its group's, whether it is a zombie (it has ended
    /// and waits for its parent to collect it), and when it started (`started`, in clock ticks
    /// since boot: field 22 of `/proc/PID/stat`).
    struct Entry {
        let pid: pid_t
        let parent: pid_t
        let group: pid_t
        let zombie: Bool
        var started: UInt64 = 0

        /// Whether it may have started at or after `ticks` (`ticksNow()`): an unknown start
        /// time (0) may.
        func mayHaveStarted(since ticks: UInt64) -> Bool { started == 0 || started >= ticks }
    }

    /// Every process now, in /proc order.
    static func all() -> [Entry] {
        var out: [Entry] = []
        scan { out.append($0) }
        return out
    }

    /// Calls `body` with every process now, in /proc order, reading each `/proc/PID/stat`
    /// into one buffer (no allocation per process).
    static func scan(_ body: (Entry) -> Void) {
        guard let dir = opendir("/proc") else { return }
        defer { closedir(dir) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { buf in
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
                if pid > 0, let entry = entry(pid, buffer: buf) { body(entry) }
            }
        }
    }

    /// The process's entry, nil when it is gone (a zombie has one).
    static func entry(_ pid: pid_t) -> Entry? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 512) { entry(pid, buffer: $0) }
    }

    private static func entry(_ pid: pid_t, buffer buf: UnsafeMutableBufferPointer<UInt8>) -> Entry? {
        let n = readFile(pid, "stat", into: buf)
        // "PID (COMM) STATE PPID PGRP ...": COMM may hold spaces and parentheses; the last ')'
        // ends it. Fields 4 and 5 are the parent and the group, field 22 the start time.
        guard n > 0, let close = buf[..<n].lastIndex(of: UInt8(ascii: ")")), close + 4 < n else { return nil }
        let state = buf[close + 2]
        var i = close + 4
        func skipField() {
            while i < n, buf[i] != 32 { i += 1 }
            i += 1
        }
        func number() -> UInt64 {
            var v: UInt64 = 0
            while i < n, buf[i] >= 48, buf[i] <= 57 {
                v = v &* 10 &+ UInt64(buf[i] - 48)
                i += 1
            }
            i += 1
            return v
        }
        let parent = pid_t(truncatingIfNeeded: number())
        let group = pid_t(truncatingIfNeeded: number())
        for _ in 6..<22 { skipField() }
        let started = number()
        return Entry(
            pid: pid, parent: parent, group: group, zombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"),
            started: started)
    }

    /// Now, in the clock ticks of `Entry.started`, rounded down: a process that starts later
    /// has a start time of at least this. (The kernel counts start times on the boot-time
    /// clock, older kernels on the monotonic one: the smaller of the two is safe for both.)
    static func ticksNow() -> UInt64 {
        var mono = timespec()
        var boot = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        #if os(Linux)
            clock_gettime(CLOCK_BOOTTIME, &boot)
        #else
            boot = mono
        #endif
        let t = min(mono.tv_sec, boot.tv_sec)
        return UInt64(max(0, t)) &* UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
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
            var found = false
            forEachMarkerWord(pid) { word in
                if !found && matches(word) { found = true }
            }
            return found
        }

        /// Calls `body` with each word of `pid`'s `TASKGRAPH_COMMAND=` (none for zombies and
        /// for processes this one may not read).
        mutating func forEachMarkerWord(_ pid: pid_t, _ body: (Substring) -> Void) {
            let fd = ProcessTable.openProc(pid, "environ")
            guard fd >= 0 else { return }
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
            close(fd)
            let prefix = Self.prefix
            var start = 0
            while start < n {
                var end = start
                while end < n, buf[end] != 0 { end += 1 }
                if end - start >= prefix.count && buf[start..<start + prefix.count].elementsEqual(prefix) {
                    let value = String(decoding: buf[(start + prefix.count)..<end], as: UTF8.self)
                    for word in value.split(separator: " ") { body(word) }
                }
                start = end + 1
            }
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

    /// Opens `/proc/PID/NAME` for reading (-1 when it cannot), the path built without
    /// allocating.
    static func openProc(_ pid: pid_t, _ name: StaticString) -> Int32 {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { path in
            var i = 0
            func put(_ b: UInt8) {
                path[i] = CChar(bitPattern: b)
                i += 1
            }
            for b in "/proc/".utf8 { put(b) }
            var divisor: pid_t = 1
            while divisor <= pid / 10 { divisor *= 10 }
            while divisor > 0 {
                put(UInt8(48 + (pid / divisor) % 10))
                divisor /= 10
            }
            put(UInt8(ascii: "/"))
            name.withUTF8Buffer { for b in $0 { put(b) } }
            put(0)
            return open(path.baseAddress!, O_RDONLY | O_CLOEXEC)
        }
    }

    private static func readFile(_ pid: pid_t, _ name: StaticString, into buf: UnsafeMutableBufferPointer<UInt8>) -> Int
    {
        let fd = openProc(pid, name)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let r = read(fd, buf.baseAddress!, buf.count)
        return max(0, r)
    }
}

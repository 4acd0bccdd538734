#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The served program's own CPU time and memory, for its row in the viewers (servers.md:
/// attached programs show their own CPU % and RSS).
extension GraphServer {
    /// Seconds between two `usage` lines of the program itself while a viewer is attached.
    static let usageInterval = 1.0

    /// Appends `{"seq":N,"t":T,"ev":"usage","cpu":S,"rss":B}` (no `id`: the program itself;
    /// `rss` its resident size now) to every viewer that has its snapshot. Server thread.
    /// `t` is the last line's: a line must never go back in time, and events queued before
    /// it are written after it.
    func sendOwnUsage(_ active: [ViewerConnection]) {
        guard !active.isEmpty, let usage = GraphServer.ownUsage() else { return }
        lock.withLock {
            let t = lastT
            for c in active where c.seq > 0 && !c.overflowed && !c.closeAfterSending {
                c.seq += 1
                c.pending.lineStart(seq: c.seq, t: t, ev: "usage")
                c.pending.usageFields(usage)
                c.pending.lineEnd()
            }
        }
        poke()
    }

    /// This process's CPU time (its own and its collected children's) and resident size
    /// now, from `/proc/self/stat`; nil elsewhere.
    static func ownUsage() -> NodeUsage? {
        #if os(Linux)
            let fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buf -> NodeUsage? in
                let n = read(fd, buf.baseAddress!, buf.count)
                guard n > 0, let s = ProcStat.parse(UnsafeBufferPointer(rebasing: buf[..<n])) else { return nil }
                let hz = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
                return NodeUsage(cpu: Double(s.ticks) / hz, rss: s.rssPages * max(1, Int(sysconf(Int32(_SC_PAGESIZE)))))
            }
        #else
            return nil
        #endif
    }
}

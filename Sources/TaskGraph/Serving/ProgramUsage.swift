#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the serving program itself costs, for the row an attach viewer shows for it
/// (docs/log-format.md, `usage` with `"program":true`): CPU seconds (user + system) so far
/// and the current resident set, from `/proc/self/stat`. Nil where there is no `/proc`.
enum ProgramUsage {
    static func sample() -> NodeUsage? {
        #if os(Linux)
            guard let bytes = readSmall("/proc/self/stat"),
                let stat = bytes.withUnsafeBufferPointer({ ProcStat.parse($0) })
            else { return nil }
            let ticks = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
            let pageSize = max(1, sysconf(Int32(_SC_PAGESIZE)))
            return NodeUsage(cpu: Double(stat.ownTicks) / ticks, rss: stat.rssPages * pageSize)
        #else
            return nil
        #endif
    }

    /// A small /proc file's bytes (at most 4 KiB), nil when it cannot be read.
    private static func readSmall(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return Array(buf[..<n])
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the serving program itself costs, for the row an attach viewer shows for it
/// (docs/log-format.md, `usage` with `"program":true`): CPU seconds (user + system) so far
/// and the current resident set, from `/proc/self`. Nil where there is no `/proc`.
enum ProgramUsage {
    static func sample() -> NodeUsage? {
        #if os(Linux)
            guard let stat = readSmall("/proc/self/stat"), let statm = readSmall("/proc/self/statm") else {
                return nil
            }
            // Fields after the command name's last `)`: state is the first, utime the 12th.
            guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
            let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
            guard fields.count > 12, let utime = number(fields[11]), let stime = number(fields[12]) else {
                return nil
            }
            let pages = statm.split(separator: UInt8(ascii: " "))
            guard pages.count > 1, let resident = number(pages[1]) else { return nil }
            let ticks = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
            let pageSize = max(1, sysconf(Int32(_SC_PAGESIZE)))
            return NodeUsage(cpu: Double(utime + stime) / ticks, rss: resident * pageSize)
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

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var v = 0
        for d in digits {
            guard d >= 48, d <= 57, v < Int.max / 10 - 10 else { return nil }
            v = v * 10 + Int(d - 48)
        }
        return digits.isEmpty ? nil : v
    }
}

/// The fields of one `/proc/PID/stat` line that a command's usage needs (proc(5)), for
/// `TaskGraphProcess`'s sampler and the server's own usage.
package struct ProcStat: Equatable {
    package var pid: Int32
    /// Field 4: the parent's pid (children are linked by it, not by process group).
    package var parent: Int32
    /// Field 3 is `Z` or `X`: it ended and waits to be collected (its times are final).
    package var zombie: Bool
    /// Fields 14 + 15: its own user and system time, in clock ticks.
    package var ownTicks: UInt64
    /// Fields 16 + 17: the times of the children it collected (theirs and their own
    /// collected children's), in clock ticks.
    package var childTicks: UInt64
    /// Field 22: when it started, in clock ticks since boot (tells a reused pid apart).
    package var started: UInt64
    /// Field 24: resident pages.
    package var rssPages: Int

    /// The fields, as the kernel gives them.
    package init(
        pid: Int32, parent: Int32, zombie: Bool, ownTicks: UInt64, childTicks: UInt64, started: UInt64, rssPages: Int
    ) {
        self.pid = pid
        self.parent = parent
        self.zombie = zombie
        self.ownTicks = ownTicks
        self.childTicks = childTicks
        self.started = started
        self.rssPages = rssPages
    }

    /// Its own and its collected children's time.
    package var ticks: UInt64 { ownTicks &+ childTicks }

    /// The line's fields, nil when it is not a stat line. The name (field 2) may hold
    /// spaces and parentheses: the last `)` ends it.
    package static func parse(_ line: UnsafeBufferPointer<UInt8>) -> ProcStat? {
        let n = line.count
        guard let open = line.firstIndex(of: UInt8(ascii: "(")),
            let close = line.lastIndex(of: UInt8(ascii: ")")), close > open, close + 2 < n
        else { return nil }
        var i = 0
        func number() -> Int64? {
            while i < n, line[i] == 32 { i += 1 }
            var negative = false
            if i < n, line[i] == UInt8(ascii: "-") {
                negative = true
                i += 1
            }
            let start = i
            var v: Int64 = 0
            while i < n, line[i] >= 48, line[i] <= 57 {
                v = v &* 10 &+ Int64(line[i] - 48)
                i += 1
            }
            guard i > start, i == n || line[i] == 32 || line[i] == 10 else { return nil }
            return negative ? -v : v
        }
        guard let pid = number(), i < n, line[i] == 32 else { return nil }
        let state = line[close + 2]
        i = close + 3
        // fields[k] holds field k + 4 (the parent is field 4).
        var fields = (0..<21).map { _ in Int64(0) }
        for k in 0..<21 {
            guard let v = number() else { return nil }
            fields[k] = v
        }
        func ticks(_ field: Int) -> UInt64 { UInt64(max(0, fields[field - 4])) }
        return ProcStat(
            pid: Int32(truncatingIfNeeded: pid), parent: Int32(truncatingIfNeeded: fields[0]),
            zombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"),
            ownTicks: ticks(14) &+ ticks(15), childTicks: ticks(16) &+ ticks(17), started: ticks(22),
            rssPages: Int(max(0, fields[24 - 4])))
    }

    /// `parse` of a text (tests, fixtures).
    package static func parse(_ text: String) -> ProcStat? {
        var text = text
        return text.withUTF8 { parse($0) }
    }
}

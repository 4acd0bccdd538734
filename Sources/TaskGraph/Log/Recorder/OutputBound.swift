/// The recorder's bound on output lines per node (`GraphRecorder.outputLimit`): a command that
/// writes 200 MB must not make a 343 MB log. Lines past the bound are counted, not recorded;
/// one `output` line says how much was left out when the node settles (or recording ends).
struct OutputBound {
    /// Bytes recorded per node (a line's text and its newline); nil: no bound.
    var limit: Int?
    /// Bytes seen per node, recorded or not (only grows, so once past the bound a node stays
    /// past it): by id in an array for the usual dense ids (a flood of output looks it up
    /// once per line; a dictionary cost two hashes a line), in a dictionary past `denseIDs`.
    private var seen: [Int] = []
    private var seenFar: [Int: Int] = [:]
    static let denseIDs = 1 << 20
    /// Bytes left out per node, not yet reported.
    private var leftOut: [Int: Int] = [:]

    /// Whether a line of `bytes` bytes (newline included) of `node` is recorded.
    mutating func admit(node: Int, bytes: Int) -> Bool {
        guard let limit else { return true }
        let total: Int
        if node >= 0 && node < Self.denseIDs {
            if node >= seen.count { seen += repeatElement(0, count: max(node + 1, seen.count * 2, 64) - seen.count) }
            total = seen[node] + bytes
            seen[node] = total
        } else {
            total = seenFar[node, default: 0] + bytes
            seenFar[node] = total
        }
        if total <= limit { return true }
        leftOut[node, default: 0] += bytes
        return false
    }

    /// The bytes left out of `node` since the last report (nil: none), now reported.
    mutating func takeLeftOut(node: Int) -> Int? {
        guard !leftOut.isEmpty else { return nil }
        return leftOut.removeValue(forKey: node)
    }

    /// Every node with bytes left out and not reported, by ascending id, now reported.
    mutating func takeAllLeftOut() -> [(node: Int, bytes: Int)] {
        defer { leftOut = [:] }
        return leftOut.sorted { $0.key < $1.key }.map { (node: $0.key, bytes: $0.value) }
    }

    /// The text of the one line that reports `bytes` left out:
    /// `[136 MiB of output left out (--output-limit 64 MiB)]`.
    func note(leftOut bytes: Int) -> String {
        "[\(Self.size(bytes)) of output left out (--output-limit \(Self.size(limit ?? 0)))]"
    }

    /// `512 bytes`, `12 KiB`, `136 MiB`, `2 GiB` (rounded to the nearest unit; below 10 units
    /// with one decimal, so 1.5 MiB is not said as 2).
    static func size(_ bytes: Int) -> String {
        let units = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (unit, name) in units where bytes >= unit {
            if bytes % unit == 0 || bytes >= 10 * unit { return "\((bytes + unit / 2) / unit) \(name)" }
            let tenths = (bytes * 10 + unit / 2) / unit
            return tenths % 10 == 0 ? "\(tenths / 10) \(name)" : "\(tenths / 10).\(tenths % 10) \(name)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}

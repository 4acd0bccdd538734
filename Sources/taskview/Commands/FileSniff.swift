#if canImport(Glibc)
    import Glibc
#endif

/// A first look at a file that failed to load, to say what it is when it is the wrong kind:
/// a replay log given to `run`, a scenario given to `replay`, or something that is not JSON.
enum FileSniff {
    enum Kind { case replayLog, scenario, notJSONObject, unknown }

    /// What the first bytes of `path` look like (unknown when it cannot be read).
    static func kind(of path: String) -> Kind {
        guard let f = fopen(path, "rb") else { return .unknown }
        defer { fclose(f) }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = fread(&buf, 1, buf.count, f)
        let head = buf.prefix(n)
        guard let first = head.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            return n == 0 ? .unknown : .notJSONObject
        }
        if head[first] != UInt8(ascii: "{") || head.contains(0) { return .notJSONObject }
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("\"format\":\"taskgraph-log\"") { return .replayLog }
        if text.contains("\"kind\"") { return .scenario }
        return .unknown
    }
}

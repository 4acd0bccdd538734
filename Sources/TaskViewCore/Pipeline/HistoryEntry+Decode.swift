import TaskGraph

/// Reading a history line back. Fields this version does not know are ignored, so later
/// versions may add some; a line missing a required field, or holding one of the wrong
/// type, is not an entry.
extension HistoryEntry {
    /// The entry `bytes` (one line without its `\n`) holds; nil when it holds none.
    package init?(line bytes: [UInt8]) {
        guard bytes.count <= Self.maxLineBytes else { return nil }
        // A scanner of its own, not `JSONParser`: a run's line may be a megabyte, and a
        // start reads ten of them; the scenario parser keeps positions for messages.
        let entry = bytes.withUnsafeBufferPointer { buffer -> HistoryEntry? in
            var s = HistoryScanner(buffer)
            guard let e = s.entry(), s.atEnd else { return nil }
            return e
        }
        guard let entry else { return nil }
        self = entry
    }
}

/// A JSON scanner for history lines: one pass, no positions, unknown fields skipped.
private struct HistoryScanner {
    let p: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ p: UnsafeBufferPointer<UInt8>) { self.p = p }

    var atEnd: Bool {
        mutating get {
            ws()
            return i == p.count
        }
    }

    mutating func entry() -> HistoryEntry? {
        var run: String?
        var start: Double?
        var seconds: Double?
        var status: Int?
        var nodes: [HistoryEntry.Node]?
        var omitted = 0
        let ok = object { s, key in
            switch key {
            case "run":
                if s.literal("null") { return true }
                run = s.string()
                return run != nil
            case "start":
                start = s.number()
                return start != nil
            case "seconds":
                seconds = s.number()
                return seconds != nil
            case "status":
                status = s.number().flatMap { Int(exactly: $0) }
                return status != nil
            case "omitted":
                guard let n = s.number().flatMap({ Int(exactly: $0) }) else { return false }
                omitted = n
                return true
            case "nodes":
                var list: [HistoryEntry.Node] = []
                let done = s.array { s in
                    guard let n = s.node() else { return false }
                    list.append(n)
                    return true
                }
                nodes = list
                return done
            default: return s.skipValue(depth: 0)
            }
        }
        guard ok, let start, let status, let nodes else { return nil }
        return HistoryEntry(run: run, start: start, seconds: seconds, status: status, nodes: nodes, omitted: omitted)
    }

    mutating func node() -> HistoryEntry.Node? {
        var path: String?
        var outcome: String?
        var seconds: Double?
        var attempts: Int?
        var key: String?
        var commit: String?
        var dirty: Bool?
        var cpu: Double?
        var rss: Int?
        var gap: Double?
        let ok = object { s, name in
            switch name {
            case "path":
                path = s.string()
                return path != nil
            case "outcome":
                outcome = s.string()
                return outcome != nil
            case "seconds":
                seconds = s.number()
                return seconds != nil
            case "attempts":
                attempts = s.number().flatMap { Int(exactly: $0) }
                return attempts != nil
            case "key":
                key = s.string()
                return key != nil
            case "commit":
                commit = s.string()
                return commit != nil
            case "dirty":
                if s.literal("true") { dirty = true } else if s.literal("false") { dirty = false } else { return false }
                return true
            case "cpu":
                cpu = s.number()
                return cpu != nil
            case "rss":
                rss = s.number().flatMap { Int(exactly: $0) }
                return rss != nil
            case "gap":
                gap = s.number().flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
                return gap != nil
            default: return s.skipValue(depth: 0)
            }
        }
        guard ok, let path, let outcome, let attempts else { return nil }
        var node = HistoryEntry.Node(
            path: path, outcome: outcome, seconds: seconds, attempts: attempts, key: key, commit: commit, dirty: dirty)
        node.cpu = cpu
        node.rss = rss
        node.gap = gap
        return node
    }

    mutating func ws() {
        while i < p.count, p[i] == 32 || p[i] == 9 || p[i] == 13 || p[i] == 10 { i += 1 }
    }

    mutating func take(_ c: UInt8) -> Bool {
        ws()
        guard i < p.count, p[i] == c else { return false }
        i += 1
        return true
    }

    mutating func literal(_ word: StaticString) -> Bool {
        ws()
        let n = word.utf8CodeUnitCount
        guard p.count - i >= n else { return false }
        for k in 0..<n where p[i + k] != word.utf8Start[k] { return false }
        i += n
        return true
    }

    /// `{ "key": value, ... }`, `field` reading each value (false: not an entry).
    mutating func object(_ field: (inout HistoryScanner, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), field(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `[ value, ... ]`, `element` reading each.
    mutating func array(_ element: (inout HistoryScanner) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = i
        var escaped = false
        while i < p.count, p[i] != UInt8(ascii: "\"") {
            if p[i] == UInt8(ascii: "\\") {
                escaped = true
                i += 1
            } else if p[i] < 0x20 {
                return nil
            }
            i += 1
        }
        guard i < p.count else { return nil }
        let body = UnsafeBufferPointer(rebasing: p[start..<i])
        i += 1
        if !escaped { return String(decoding: body, as: UTF8.self) }
        return try? JSONEscapes.decode(body)
    }

    mutating func number() -> Double? {
        ws()
        let start = i
        while i < p.count, (p[i] >= 48 && p[i] <= 57) || p[i] == 45 || p[i] == 43 || p[i] == 46 || p[i] | 0x20 == 101 {
            i += 1
        }
        guard i > start, let d = Double(String(decoding: UnsafeBufferPointer(rebasing: p[start..<i]), as: UTF8.self)),
            d.isFinite
        else { return nil }
        return d
    }

    /// Skips any value (a field this version does not know).
    mutating func skipValue(depth: Int) -> Bool {
        guard depth < 64 else { return false }
        ws()
        guard i < p.count else { return false }
        switch p[i] {
        case UInt8(ascii: "{"): return object { s, _ in s.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): return array { $0.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number() != nil
        }
    }
}

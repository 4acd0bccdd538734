import TaskGraph

/// How a `RunComparison` is printed: `taskview diff`'s text and JSON, and the end-of-run
/// report's block.
extension RunComparison {
    /// `taskview diff`'s text (paths sanitized).
    package var lines: [String] {
        var out: [String] = []
        out.append("Total: " + Self.totalText(baseTotal, newTotal, totalDelta, totalPercent))
        let baseSet = Set(baseCriticalPath.map(\.path))
        let newSet = Set(newCriticalPath.map(\.path))
        let width = min(
            50,
            (baseCriticalPath.map(\.path) + newCriticalPath.map(\.path) + (slower + faster).map(\.path))
                .map { Sanitizer.clean($0).count }.max() ?? 0)
        func padded(_ path: String) -> String {
            let p = Sanitizer.clean(path)
            return p + String(repeating: " ", count: max(0, width - p.count))
        }
        for (word, steps, other, mark) in [
            ("base", baseCriticalPath, newSet, "- "), ("new", newCriticalPath, baseSet, "+ "),
        ] {
            let sum = steps.reduce(0) { $0 + $1.seconds }
            out.append("Critical path, \(word) (\(Format.seconds3(sum))s):")
            for s in steps {
                // Marked: it left the path (base) or joined it (new).
                out.append(
                    "  " + (other.contains(s.path) ? "  " : mark) + padded(s.path) + "  \(Format.seconds3(s.seconds))s")
            }
        }
        for (word, list) in [("Slower", slower), ("Faster", faster)] {
            out.append("\(word): " + (list.isEmpty ? "none" : "\(list.count)"))
            for c in list {
                var line = "  " + padded(c.path) + "  \(Format.seconds3(c.base))s → \(Format.seconds3(c.new))s  "
                line += Self.signed(c.delta, decimals: 3) + "s"
                if let r = c.ratio { line += " (" + Self.signed((r - 1) * 100, decimals: 0) + "%)" }
                if let usage = c.usageText { line += "  " + usage }
                out.append(line)
            }
        }
        out.append("Outcomes changed: " + (outcomes.isEmpty ? "none" : "\(outcomes.count)"))
        for o in outcomes {
            let word = o.word + String(repeating: " ", count: max(0, 9 - o.word.count))
            out.append("  \(word) \(Sanitizer.clean(o.path))  \(o.base) → \(o.new)")
        }
        out.append(Self.pathList("Added", added))
        out.append(Self.pathList("Removed", removed))
        return out
    }

    /// The end-of-run report's block (`against`: what it is compared with): the total's change, the three largest slower and
    /// faster steps, the outcome changes (empty when nothing can be said).
    package func reportLines(against: String = "the previous run") -> [String] {
        guard totalDelta != nil || !slower.isEmpty || !faster.isEmpty || !outcomes.isEmpty else { return [] }
        var out = ["Compared with \(against): " + Self.totalText(baseTotal, newTotal, totalDelta, totalPercent)]
        for (word, list) in [("slower", slower), ("faster", faster)] where !list.isEmpty {
            let items = list.prefix(3).map { Sanitizer.clean($0.path) + " " + Self.signed($0.delta, decimals: 1) + "s" }
            out.append("  \(word): " + items.joined(separator: ", "))
        }
        if !outcomes.isEmpty {
            let items = outcomes.prefix(5).map { Sanitizer.clean($0.path) + " " + $0.word }
            out.append("  outcomes: " + items.joined(separator: ", ") + (outcomes.count > 5 ? ", ..." : ""))
        }
        return out
    }

    /// One JSON object: `total` (`base`, `new`, `delta`), `criticalPath` (`base`, `new`),
    /// `slower`, `faster` (`path`, `base`, `new`, `delta`, `ratio`; `cpu` and `rss` changes
    /// when both runs have them), `outcomes` (`path`, `base`, `new`), `added`, `removed`;
    /// seconds, null when unknown.
    package var json: String {
        var w = JSONWriter(capacity: 4096)
        func number(_ v: Double?) {
            if let v { w.double(v) } else { w.raw("null") }
        }
        func each<T>(_ items: [T], _ body: (T) -> Void) {
            w.raw("[")
            for (i, item) in items.enumerated() {
                if i > 0 { w.raw(",") }
                body(item)
            }
            w.raw("]")
        }
        w.raw("{\"total\":{\"base\":")
        number(baseTotal)
        w.raw(",\"new\":")
        number(newTotal)
        w.raw(",\"delta\":")
        number(totalDelta.map(Self.micro))
        w.raw("},\"criticalPath\":{")
        for (i, (key, steps)) in [("base", baseCriticalPath), ("new", newCriticalPath)].enumerated() {
            w.raw(i == 0 ? "\"" : ",\"")
            w.raw(key)
            w.raw("\":")
            each(steps) { s in
                w.raw("{\"path\":")
                w.string(s.path)
                w.raw(",\"seconds\":")
                w.double(s.seconds)
                w.raw("}")
            }
        }
        w.raw("}")
        for (key, list) in [("slower", slower), ("faster", faster)] {
            w.raw(",\"")
            w.raw(key)
            w.raw("\":")
            each(list) { c in
                w.raw("{\"path\":")
                w.string(c.path)
                w.raw(",\"base\":")
                w.double(c.base)
                w.raw(",\"new\":")
                w.double(c.new)
                w.raw(",\"delta\":")
                w.double(Self.micro(c.delta))
                w.raw(",\"ratio\":")
                number(c.ratio.map { ($0 * 1e4).rounded() / 1e4 })
                if let cpu = c.cpu {
                    w.raw(",\"cpu\":")
                    w.double(Self.micro(cpu))
                }
                if let rss = c.rss {
                    w.raw(",\"rss\":")
                    w.int(rss)
                }
                w.raw("}")
            }
        }
        w.raw(",\"outcomes\":")
        each(outcomes) { o in
            w.raw("{\"path\":")
            w.string(o.path)
            w.raw(",\"base\":")
            w.string(o.base)
            w.raw(",\"new\":")
            w.string(o.new)
            w.raw("}")
        }
        w.raw(",\"added\":")
        each(added) { w.string($0) }
        w.raw(",\"removed\":")
        each(removed) { w.string($0) }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `12.500s → 15.000s (+2.500s, +20.0%)`, with `?` for an unknown total.
    static func totalText(_ base: Double?, _ new: Double?, _ delta: Double?, _ percent: Double?) -> String {
        var s = (base.map { Format.seconds3($0) + "s" } ?? "?") + " → " + (new.map { Format.seconds3($0) + "s" } ?? "?")
        if let delta {
            s += " (" + signed(delta, decimals: 3) + "s"
            if let percent { s += ", " + signed(percent, decimals: 1) + "%" }
            s += ")"
        }
        return s
    }

    /// `seconds` to the microsecond (a difference of two times prints as 0.6, not
    /// 0.6000000000000001).
    static func micro(_ seconds: Double) -> Double {
        (seconds * 1e6).rounded() / 1e6
    }

    /// `value` with its sign (`+` for zero too).
    package static func signed(_ value: Double, decimals: Int) -> String {
        let text = Format.fixed(value, decimals: decimals)
        return text.hasPrefix("-") ? text : "+" + text
    }

    /// `Added: 2 (a/x, a/y)` or `Added: none`; at most 10 named.
    static func pathList(_ word: String, _ paths: [String]) -> String {
        guard !paths.isEmpty else { return "\(word): none" }
        let names = paths.prefix(10).map { Sanitizer.clean($0) }.joined(separator: ", ")
        return "\(word): \(paths.count) (\(names)\(paths.count > 10 ? ", ..." : ""))"
    }
}

extension RunComparison.Change {
    /// `CPU +1.2s, peak memory +30 MiB` (what both runs have of it; nil: neither).
    var usageText: String? {
        var parts: [String] = []
        if let cpu { parts.append("CPU " + RunComparison.signed(cpu, decimals: 1) + "s") }
        if let rss {
            parts.append("peak memory " + RunComparison.signed(Double(rss) / 1_048_576, decimals: 0) + " MiB")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

/// Where `t` seeks a replay: a time on the recorded clock or a share of the recording.
package enum SeekTarget: Hashable, Sendable {
    case seconds(Double)
    case fraction(Double)

    /// Parses what a person types after `t`: `1:30`, `1:02:03`, `90s`, `90`, `2m`, `45%`
    /// (nil: not a time).
    package init?(_ text: String) {
        let t = text.filter { $0 != " " }.lowercased()
        guard !t.isEmpty else { return nil }
        if t.hasSuffix("%") {
            guard let p = Double(t.dropLast()), p.isFinite, p >= 0, p <= 100 else { return nil }
            self = .fraction(p / 100)
            return
        }
        if t.contains(":") {
            var total = 0.0
            let parts = t.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 3 else { return nil }
            for part in parts {
                guard let v = Double(part), v.isFinite, v >= 0 else { return nil }
                total = total * 60 + v
            }
            self = .seconds(total)
            return
        }
        var scale = 1.0
        var number = Substring(t)
        if t.hasSuffix("ms") {
            scale = 0.001
            number = number.dropLast(2)
        } else if t.hasSuffix("s") {
            number = number.dropLast()
        } else if t.hasSuffix("m") {
            scale = 60
            number = number.dropLast()
        } else if t.hasSuffix("h") {
            scale = 3600
            number = number.dropLast()
        }
        guard let v = Double(number), v.isFinite, v >= 0 else { return nil }
        self = .seconds(v * scale)
    }

    /// The time it names in a recording `duration` seconds long (clamped to it).
    package func seconds(in duration: Double) -> Double {
        switch self {
        case .seconds(let s): min(max(0, s), duration)
        case .fraction(let f): duration * min(max(0, f), 1)
        }
    }
}

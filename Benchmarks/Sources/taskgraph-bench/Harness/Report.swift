/// Formats rows as one Markdown table: median, min, max per subject and workload, the ratio
/// of GraphTask's median to each peer's, and the target with PASS/MISS beside GraphTask.
enum Report {
    static func table(_ rows: [Row]) -> String {
        var lines = [
            "| Workload | Subject | median | min | max | runs | GraphTask ÷ this (plain / recorded) | Target | |",
            "|---|---|---:|---:|---:|---:|---:|---|---|",
        ]
        var lastWorkload = ""
        for row in rows {
            let w = row.workload
            let title = w.id == lastWorkload ? "" : "\(w.id) \(w.title)"
            lastWorkload = w.id
            let sameWorkload = rows.filter { $0.workload.id == w.id }
            let plain = sameWorkload.first { $0.kind == .graphTask }?.stats?.median
            let recorded = sameWorkload.first { $0.kind == .graphTaskRecorded }?.stats?.median
            guard let s = row.stats else {
                lines.append(
                    "| \(title) | \(row.subject) | \(row.note) | | | | | \(targetText(row)) | "
                        + "\(row.timedOut ? "MISS" : "") |")
                continue
            }
            var ratio = ""
            if row.kind == .peer || row.kind == .floor, ratioApplies(w.measure) {
                let parts = [plain, recorded].map { $0.map { String(format2($0 / s.median)) + "×" } ?? "n/a" }
                ratio = parts.joined(separator: " / ")
            }
            var verdict = ""
            if let target = w.target,
                row.kind == .graphTask || row.kind == .graphTaskRecorded
                    || row.kind == .taskView
            {
                verdict = target.pass(s.median) ? "PASS" : "MISS"
            }
            // For a rate, the shortest time per item is the highest rate: min and max swap.
            var (low, high) = (s.min, s.max)
            if case .rate = w.measure { (low, high) = (high, low) }
            lines.append(
                "| \(title) | \(row.subject) | \(format(s.median, w.measure)) | "
                    + "\(format(low, w.measure)) | \(format(high, w.measure)) | \(s.runs) | \(ratio) | "
                    + "\(targetText(row)) | \(verdict) |")
        }
        return lines.joined(separator: "\n")
    }

    private static func targetText(_ row: Row) -> String {
        guard let t = row.workload.target else { return "" }
        switch row.kind {
        case .graphTask, .graphTaskRecorded, .taskView: return t.text
        case .peer, .floor: return ""
        }
    }

    private static func ratioApplies(_ m: Measure) -> Bool {
        if case .rate = m { return false }
        return true
    }

    /// A value in the workload's display unit, three significant digits.
    static func format(_ value: Double, _ measure: Measure) -> String {
        switch measure {
        case .perItem: return sig3(value * 1e6) + " µs"
        case .total: return sig3(value * 1e3) + " ms"
        case .bytesPerItem: return sig3(value) + " B"
        case .rate(let unit):
            guard value > 0 else { return "∞" }
            let perSecond = 1 / value
            return perSecond >= 1e6 ? sig3(perSecond / 1e6) + " M \(unit)/s" : sig3(perSecond / 1e3) + " k \(unit)/s"
        }
    }

    static func sig3(_ v: Double) -> String {
        let a = abs(v)
        if a >= 100 { return String(Int(v.rounded())) }
        if a >= 10 { return fixed(v, 1) }
        if a >= 1 { return fixed(v, 2) }
        return fixed(v, 3)
    }

    static func format2(_ v: Double) -> String { v >= 10 ? fixed(v, 1) : fixed(v, 2) }

    /// `v` with `digits` decimals, without Foundation.
    static func fixed(_ v: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((abs(v) * scale).rounded())
        let whole = scaled / Int(scale)
        var frac = String(scaled % Int(scale))
        while frac.count < digits { frac = "0" + frac }
        return (v < 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + frac : "")
    }
}

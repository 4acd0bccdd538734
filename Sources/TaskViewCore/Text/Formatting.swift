/// Number formats shared by the dashboard and the headless output (no Foundation, so the
/// output does not depend on the locale).
package enum Format {
    /// Seconds with exactly three decimals: `12.345`.
    package static func seconds3(_ t: Double) -> String {
        fixed(t, decimals: 3)
    }

    /// `value` rounded to `decimals` places, always printing them.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let negative = value < 0
        let units = Int64((abs(value) * Double(scale)).rounded())
        var s = String(units / scale)
        if decimals > 0 {
            var frac = String(units % scale)
            while frac.count < decimals { frac = "0" + frac }
            s += "." + frac
        }
        return negative && units != 0 ? "-" + s : s
    }

    /// A short duration: `4.2s`, `1m05s`, `2h03m`.
    package static func duration(_ t: Double) -> String {
        let t = t.isFinite ? max(0, t) : 0
        if t < 60 { return fixed(t, decimals: 1) + "s" }
        let whole = Int(t)
        if whole < 3600 { return "\(whole / 60)m" + pad2(whole % 60) + "s" }
        return "\(whole / 3600)h" + pad2((whole / 60) % 60) + "m"
    }

    /// Seconds from `t` until `duration(_:)` shows another text (a tenth of a second under a
    /// minute, then a second, then a minute), never less than a frame (1/30 s).
    package static func secondsUntilDurationChanges(_ t: Double) -> Double {
        let t = t.isFinite ? max(0, t) : 0
        let next: Double
        if t < 60 {
            next = ((t * 10 + 0.5).rounded(.down) + 0.5) / 10 // tenths are rounded
        } else {
            let step: Double = t < 3600 ? 1 : 60 // seconds and minutes are cut
            next = ((t / step).rounded(.down) + 1) * step
        }
        return max(1.0 / 30, next - t)
    }

    /// Whole percent of a fraction, right-aligned in 4 columns: ` 45%`.
    package static func percent(_ fraction: Double) -> String {
        let p = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        let s = "\(p)%"
        return String(repeating: " ", count: max(0, 4 - s.count)) + s
    }

    /// A weight as shown next to a name: `2`, `0.5`.
    package static func weight(_ w: Double) -> String {
        if w == w.rounded() && abs(w) < 1e15 { return String(Int64(w)) }
        return fixed(w, decimals: 2)
    }

    /// A weight as the row shows it after the name, so it cannot be read as a count:
    /// `w 3`, `w 0.5`, `w 12.3k`, `w 2.05M` (three significant digits from 10,000 up).
    package static func weightLabel(_ w: Double) -> String {
        let units: [(Double, String)] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        guard w.isFinite, w >= 10_000 else {
            var text = weight(w)
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            return "w " + text
        }
        for (scale, unit) in units where w >= scale {
            let v = w / scale
            let decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2
            var text = fixed(v, decimals: decimals)
            // 999.5k rounds to 1000k: say 1.00M instead.
            if decimals == 0 && text.count > 3, let next = units.first(where: { $0.0 == scale * 1000 }) {
                text = fixed(w / next.0, decimals: 2)
                return "w " + text + next.1
            }
            return "w " + text + unit
        }
        return "w " + weight(w)
    }

    /// A replay speed: `2`, `0.5`, `1/64`.
    package static func speed(_ s: Double) -> String {
        if s >= 1 || s <= 0 { return weight(s) }
        let inverse = (1 / s).rounded()
        if abs(1 / inverse - s) < 1e-9 { return "1/" + weight(inverse) }
        return fixed(s, decimals: 2)
    }

    static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

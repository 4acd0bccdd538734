import TaskGraph

/// The report's waits (`WhyLine.waits`): whether `--jobs` or a dependency held the run back.
extension RunReport {
    /// How many of the longest waits are listed.
    package static let waitsCount = 5

    /// The longest waits of `all`, longest first, and the seconds waited in all for needs
    /// and for slots.
    static func longestWaits(_ all: [WhyLine.Wait]) -> (longest: [WhyLine.Wait], needs: Double, slot: Double) {
        let longest = all.sorted { $0.total != $1.total ? $0.total > $1.total : $0.id < $1.id }.prefix(waitsCount)
        return (Array(longest), all.reduce(0) { $0 + $1.needs }, all.reduce(0) { $0 + $1.slot })
    }

    /// `Longest waits (in all 4.000s for needs, 1.500s for a slot):` and a row per wait
    /// (`  deploy  needs 3.000s  slot 0.500s`); none when nothing waited.
    var waitLines: [String] {
        guard !waits.isEmpty else { return [] }
        var out = [
            "Longest waits (in all \(Format.seconds3(waitedForNeeds))s for needs, "
                + "\(Format.seconds3(waitedForSlots))s for a slot):"
        ]
        let width = min(40, waits.map { Sanitizer.clean($0.name).count }.max() ?? 0)
        for w in waits {
            let name = Sanitizer.clean(w.name)
            let pad = String(repeating: " ", count: max(0, width - name.count))
            out.append(
                "  " + name + pad + "  needs " + Format.seconds3(w.needs) + "s  slot " + Format.seconds3(w.slot) + "s")
        }
        return out
    }

    /// `"waits":[{"id":4,"name":"deploy","needs":3,"slot":0.5}]`, longest first.
    func writeWaits(to w: inout JSONWriter) {
        w.raw(",\"waits\":[")
        for (i, wait) in waits.enumerated() {
            w.raw(i == 0 ? "{\"id\":" : ",{\"id\":")
            w.int(wait.id)
            w.raw(",\"name\":")
            w.string(wait.name)
            w.raw(",\"needs\":")
            w.double(wait.needs)
            w.raw(",\"slot\":")
            w.double(wait.slot)
            w.raw("}")
        }
        w.raw("]")
    }
}

import TaskGraph

/// A warning of the run, as the report lists it.
package struct ReportWarning: Sendable, Equatable {
    package var id: Int
    /// The node's path (`build/core`; raw, sanitized when printed).
    package var path: String
    package var rule: String
    package var text: String
    /// When it began.
    package var time: Double
}

extension RunReport {
    /// The warnings `tree` saw begin, in order.
    static func warnings(in tree: TreeModel) -> [ReportWarning] {
        tree.warningsSeen.map { w in
            let path = tree.contains(w.id) ? NodePath.of(w.id, in: tree) : "#\(w.id)"
            return ReportWarning(id: w.id, path: path, rule: w.rule, text: w.text, time: w.time)
        }
    }

    /// `Warnings: 2`, then `  ⚠ 3.059s build/core: no output for 2m` each (none without).
    var warningLines: [String] {
        guard !warnings.isEmpty else { return [] }
        return ["Warnings: \(warnings.count)"]
            + warnings.map {
                "  ⚠ " + Format.seconds3($0.time) + "s " + Sanitizer.clean($0.path) + ": " + Sanitizer.clean($0.text)
            }
    }

    /// `[{"id":0,"path":"build/core","rule":"silent","text":"no output for 2m","time":3.059}]`.
    func writeWarnings(to w: inout JSONWriter) {
        w.list(warnings) { w, x in
            w.raw("{\"id\":")
            w.int(x.id)
            w.raw(",\"path\":")
            w.string(x.path)
            w.raw(",\"rule\":")
            w.string(x.rule)
            w.raw(",\"text\":")
            w.string(x.text)
            w.raw(",\"time\":")
            w.double(x.time)
            w.raw("}")
        }
    }
}

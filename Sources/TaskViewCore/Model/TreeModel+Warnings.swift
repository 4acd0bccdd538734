import TaskGraph

/// Warnings about nodes (`GraphChange.warn`): `⚠` on rows, `⚠ N` in the header, the detail
/// pane's list, and `W`'s jumps.
extension TreeModel {
    @usableFromInline package mutating func warned(id: NodeID, rule: String, text: String?, time: Double) {
        let i = id.rawValue
        guard contains(i) else { return }
        let had = warnings[i]?[rule] != nil
        if let text {
            warnings[i, default: [:]][rule] = text
            if !had { warningCount += 1 }
            if !had, warningsSeen.count < Self.maxWarningsSeen {
                warningsSeen.append(SeenWarning(id: i, rule: rule, text: text, time: time))
            }
        } else if had {
            warnings[i]?[rule] = nil
            if warnings[i]?.isEmpty == true { warnings[i] = nil }
            warningCount -= 1
        }
    }

    /// How many warnings `warningsSeen` keeps.
    package static let maxWarningsSeen = 1000

    /// Forgets node `i`'s warnings (it was dropped, or added again).
    mutating func clearWarnings(_ i: Int) {
        guard let list = warnings.removeValue(forKey: i) else { return }
        warningCount -= list.count
    }

    /// Node `i`'s warnings as `(rule, text)`, in `WarningRule.all`'s order (unknown rules
    /// last, by name).
    package func warningList(_ i: Int) -> [(rule: String, text: String)] {
        guard let list = warnings[i] else { return [] }
        return list.sorted { a, b in
            let ia = WarningRule.all.firstIndex(of: a.key) ?? WarningRule.all.count
            let ib = WarningRule.all.firstIndex(of: b.key) ?? WarningRule.all.count
            return ia != ib ? ia < ib : a.key < b.key
        }.map { ($0.key, $0.value) }
    }

    /// Whether node `i` has a warning.
    package func hasWarning(_ i: Int) -> Bool {
        !warnings.isEmpty && warnings[i] != nil
    }
}

/// A warning that began: about node `id` (raw), its rule, its text (raw), when.
package struct SeenWarning: Sendable, Equatable {
    package var id: Int
    package var rule: String
    package var text: String
    package var time: Double
}

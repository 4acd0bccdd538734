/// The detail pane's output search: case-insensitive substring matches in a command's kept
/// output lines, as shown (sanitized).
package enum OutputSearch {
    /// Where `query` occurs in `text`, case-insensitively: (first character, characters)
    /// of each match, in order, not overlapping. An empty query matches nothing.
    package static func occurrences(in text: String, of query: String) -> [(start: Int, length: Int)] {
        let q = query.map { $0.lowercased() }
        guard !q.isEmpty else { return [] }
        let t = text.map { $0.lowercased() }
        var found: [(start: Int, length: Int)] = []
        var i = 0
        while i + q.count <= t.count {
            if t[i] == q[0] && t[i..<(i + q.count)].elementsEqual(q) {
                found.append((i, q.count))
                i += q.count
            } else {
                i += 1
            }
        }
        return found
    }

    /// Whether `text` contains `query`, case-insensitively.
    package static func contains(_ text: String, _ query: String) -> Bool {
        !query.isEmpty && !occurrences(in: text, of: query).isEmpty
    }

    /// The kept lines of `ring` that match, as line numbers counted like `OutputRing.total`
    /// from 0, oldest first.
    package static func matches(_ ring: OutputRing, _ query: String) -> [Int] {
        guard !query.isEmpty else { return [] }
        let oldest = ring.total - ring.count
        var out: [Int] = []
        for (i, line) in ring.lines.enumerated() where contains(Sanitizer.clean(line.text), query) {
            out.append(oldest + i)
        }
        return out
    }

    /// The pane header's words: `match 2 of 5`, `no match for "x"`.
    package static func status(query: String, matches: [Int], current: Int?) -> String {
        guard !matches.isEmpty else { return "no match for \"" + query + "\"" }
        let k = current.flatMap { c in matches.firstIndex { $0 >= c } } ?? 0
        return "match \(k + 1) of \(matches.count)"
    }
}

extension DashboardModel {
    /// Where the keyboard is (see `KeyContext`): the detail pane of a command, with or
    /// without an output search, or anywhere else.
    package var keyContext: KeyContext {
        guard detailShowsCommand else { return .anywhere }
        return view.search.isEmpty ? .commandDetail : .outputSearch
    }

    /// Whether the open detail pane shows a command (facts or output lines) or log records.
    package var detailShowsCommand: Bool {
        let sel = view.selection
        guard view.detailOpen, shown.contains(sel.node) else { return false }
        let c = displayTree().content(sel).rawValue
        return shown.outputs[c] != nil || shown.commands[c] != nil || shown.logs[c] != nil
    }

    /// The output lines of the command whose detail pane is open.
    package var detailOutput: OutputRing? {
        let sel = view.selection
        guard view.detailOpen, shown.contains(sel.node) else { return nil }
        return shown.detailStream(displayTree().content(sel).rawValue, filter: view.logFilter)
    }
}

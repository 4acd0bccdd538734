import TestSupport
import Testing

@testable import TaskGraph
@testable import TaskViewCore

/// docs/taskview.md's key table is `KeyTable` as it is: every binding, in table order, with
/// its label, help text and scope. A key added to the table without its row fails here.
@Suite struct KeysDocTests {
    @Test func manualListsEveryKeyBinding() throws {
        let root = packageRoot()
        let text = String(decoding: try LogReader.readFile(root + "/docs/taskview.md"), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "## Keys"))
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }
        let header = try #require(section.firstIndex(of: "| keys | action | where |"))
        let rows = section[(header + 2)...].prefix { $0.hasPrefix("|") }
        let expected = KeyTable.bindings.map { b in
            let scope =
                switch b.scope {
                case .always: "everywhere"
                case .liveOnly: "live"
                case .replayOnly: "replay"
                }
            return "| `\(b.label)` | \(b.help) | \(scope) |"
        }
        let documented = Array(rows)
        for (i, row) in expected.enumerated() {
            #expect(
                i < documented.count && documented[i] == row, "docs/taskview.md, Keys, row \(i + 1) should be: \(row)")
        }
        #expect(
            documented.count == expected.count,
            "docs/taskview.md, Keys: \(documented.count) rows, the table has \(expected.count)")
    }
}

import Testing

@testable import TaskGraph

/// A snapshot's node objects, byte for byte (docs/log-format.md): the common values written in
/// one piece must read exactly as field by field.
@Suite struct SnapshotNodeEncodingTests {
    private func encoded(_ n: LogModel.Node) -> String {
        var out = LogBuffer()
        out.snapshotNode(n, index: nil)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    private func node(
        _ state: TaskState, failed: Bool = false, fraction: Double, weight: Double = 1
    ) -> LogModel.Node {
        var n = LogModel.Node(id: 7, kind: NodeKind.scope, name: "s", weight: weight)
        n.parent = 3
        n.state = state
        n.failed = failed
        n.fraction = fraction
        return n
    }

    @Test func commonAndUncommonNodesReadFieldByField() {
        let head = #"{"id":7,"kind":"scope","parent":3,"name":"s","#
        let cases: [(LogModel.Node, String)] = [
            (node(.completed, fraction: 1), #""weight":1,"state":"completed","failed":false,"fraction":1}"#),
            (node(.notExecuted, fraction: 0), #""weight":1,"state":"notExecuted","failed":false,"fraction":0}"#),
            (
                node(.completed, failed: true, fraction: 0.25, weight: 2),
                #""weight":2,"state":"completed","failed":true,"fraction":0.25}"#
            ),
            (
                node(.completed, fraction: 0.5, weight: 0),
                #""weight":0,"state":"completed","failed":false,"fraction":0.5}"#
            ),
            (node(.notExecuted, fraction: 0.5), #""weight":1,"state":"notExecuted","failed":false,"fraction":0.5}"#),
            (node(.executing, fraction: 0), #""weight":1,"state":"executing","failed":false,"fraction":0}"#),
            (node(.cancelled, fraction: 1), #""weight":1,"state":"cancelled","failed":false,"fraction":1}"#),
        ]
        for (n, tail) in cases { #expect(encoded(n) == head + tail) }
    }
}

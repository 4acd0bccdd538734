import TaskGraph

/// The last `capacity` output lines of one node (a command), oldest first: what the detail
/// pane shows. Memory stays bounded however much a command prints.
package struct OutputRing: Sendable {
    /// Lines kept per node.
    package static let capacity = 200

    package struct Line: Sendable, Equatable {
        package var stream: OutputStreamName
        /// Raw text (sanitized when drawn).
        package var text: String
        /// Where it came among the node's output lines and log records (`TreeModel.streamOrder`).
        package var order: Int = 0
        /// A log record's level (a line of `TreeModel.detailStream`); nil for output.
        package var level: String? = nil

        /// Equal lines say the same (where they came in the stream aside).
        package static func == (a: Line, b: Line) -> Bool {
            a.stream == b.stream && a.text == b.text && a.level == b.level
        }
    }

    private var storage: [Line] = []
    private var head = 0
    /// Lines seen in all (kept or not).
    package private(set) var total = 0

    package init() {}

    /// A ring holding `lines` (all kept), `total` lines seen: a merged view
    /// (`TreeModel.detailStream`).
    package init(lines: [Line], total: Int) {
        storage = lines
        self.total = total
    }

    package mutating func append(_ line: Line) {
        total += 1
        if storage.count < OutputRing.capacity {
            storage.append(line)
        } else {
            storage[head] = line
            head = (head + 1) % OutputRing.capacity
        }
    }

    /// The kept lines, oldest first.
    package var lines: [Line] {
        Array(storage[head...] + storage[..<head])
    }

    package var count: Int { storage.count }
}

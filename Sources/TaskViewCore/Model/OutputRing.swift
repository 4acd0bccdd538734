import TaskGraph

/// The last `capacity` output lines of one node (a command), oldest first: what the detail
/// pane shows. Memory stays bounded however much a command prints.
public struct OutputRing: Sendable {
    /// Lines kept per node.
    public static let capacity = 200

    public struct Line: Sendable, Equatable {
        public var stream: OutputStreamName
        /// Raw text (sanitized when drawn).
        public var text: String
    }

    private var storage: [Line] = []
    private var head = 0
    /// Lines seen in all (kept or not).
    public private(set) var total = 0

    public init() {}

    public mutating func append(_ line: Line) {
        total += 1
        if storage.count < OutputRing.capacity {
            storage.append(line)
        } else {
            storage[head] = line
            head = (head + 1) % OutputRing.capacity
        }
    }

    /// The kept lines, oldest first.
    public var lines: [Line] {
        Array(storage[head...] + storage[..<head])
    }

    public var count: Int { storage.count }
}

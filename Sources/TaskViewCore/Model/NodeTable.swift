/// `TreeModel`'s nodes by id: an array while ids stay dense (every access an index, as
/// before), and a dictionary for ids far beyond the nodes present, so a log or a socket
/// naming node 16,777,215 costs one entry, not sixteen million.
public struct NodeTable: Sendable {
    private var dense: [TreeModel.Node] = []
    private var far: [Int: TreeModel.Node] = [:]
    private var farMax = -1
    private static let absent = TreeModel.Node()

    init() {}

    /// One past the largest id ever stored (ids below may be absent: `exists` is false).
    public var count: Int { Swift.max(dense.count, farMax + 1) }

    /// Slots actually held (tests: memory follows the nodes, not the ids).
    var storedCount: Int { dense.count + far.count }

    /// Every id below `count`.
    public var indices: Range<Int> { 0..<count }

    public subscript(_ id: Int) -> TreeModel.Node {
        get {
            if id < dense.count { return dense[id] }
            return far.isEmpty ? Self.absent : far[id] ?? Self.absent
        }
        _modify {
            if id < dense.count {
                yield &dense[id]
            } else {
                var node = far[id] ?? Self.absent
                yield &node
                far[id] = node.exists ? node : nil
            }
        }
        set {
            if id < dense.count { dense[id] = newValue } else { far[id] = newValue.exists ? newValue : nil }
        }
    }

    /// Makes room for `id`: the array grows while ids stay dense; others go to the dictionary.
    mutating func ensure(_ id: Int) {
        guard id >= dense.count else { return }
        if id < 2 * dense.count + 4096 {
            // Plain appends: the array doubles its capacity by itself.
            while dense.count <= id { dense.append(Self.absent) }
            if !far.isEmpty {
                for (k, v) in far where k < dense.count {
                    dense[k] = v
                    far[k] = nil
                }
            }
        } else {
            farMax = Swift.max(farMax, id)
        }
    }
}
